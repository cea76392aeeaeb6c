// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// reproofs is how often TestProofSparesTenantPods proves: as many re-proofs as the idle container makes in 50
// minutes at the chart's default interval.
const reproofs = 10

// TestProofSparesTenantPods: a tenant's gVisor pod labelled like a proof sandbox (the kubelet copies pod labels into
// the sandbox's, so a tenant can set the proof's label on its sandbox) survives the installer's install and ten
// re-proofs: the proof removes only the sandboxes it created itself.
func TestProofSparesTenantPods(t *testing.T) {
	s := newSuite(t)
	s.releases(t, func(c installertest.Containerd) bool { return c.Major == 2 && c.Minor == 4 }, func(t *testing.T, c installertest.Containerd) {
		n := s.newNode(t, c, nodetest.Config{}, "[runsc_config]\n")
		n.install(t, 1)
		ctx := context.Background()
		pod, err := n.RunPod(ctx, nodetest.PodSpec{Handler: "runsc", Namespace: "tenant-a",
			Labels: map[string]string{sandbox.LabelKey: "gvisor-installer", "app": "mimic"}})
		if err != nil {
			t.Fatal(err)
		}
		id, err := n.StartContainer(ctx, pod, nodetest.BusyboxImage, "sleep", "3600")
		if err != nil {
			t.Fatal(err)
		}
		prover, ok := n.o.Prover.(sandbox.CRI)
		if !ok {
			t.Fatalf("the installer's prover is a %T, want sandbox.CRI", n.o.Prover)
		}
		n.install(t, 0) // an install proves too
		for i := range reproofs {
			proof, err := prover.Prove(ctx)
			if err != nil {
				t.Fatalf("proof %d: %v", i+1, err)
			}
			if proof.Leftovers != 0 {
				t.Errorf("proof %d removed %d sandboxes of earlier proofs, want 0 (none was left)", i+1, proof.Leftovers)
			}
		}
		if _, err := n.ExecSync(ctx, id, "true"); err != nil {
			t.Errorf("the tenant's pod labelled %s did not survive %d proofs: %v", sandbox.LabelKey, reproofs, err)
		}
		if handler, _, err := n.SandboxHandler(ctx, pod); err != nil || handler != "runsc" {
			t.Errorf("the tenant's sandbox after %d proofs: handler %q, %v", reproofs, handler, err)
		}
	})
}
