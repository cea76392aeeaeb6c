// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel/nodelabeltest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestLabelNode is install/uninstall --label-node on a real containerd 2.4 and a real kube-apiserver carrying what
// pkg/render renders with the readiness gate on. The installer talks to the API server as the installation pod of
// node-a does: its service account with the pod-bound token, passed in as a rest.Config (Options.NodeLabel) instead
// of the in-cluster files. Install labels the node only after runsc is verified (not yet at containerd's restart);
// uninstall removes the label before containerd restarts without runsc; a denied patch fails the run, which the
// command turns into exit 1 and no ready file (pod not Ready).
func TestLabelNode(t *testing.T) {
	c := installertest.Release(t, "2.4")
	s := nodelabeltest.StartAPIServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s.ApplyRendered(ctx, t, "pool-a")
	s.CreateNode(ctx, t, "node-a", "pool-a")
	s.CreateNode(ctx, t, "node-b", "pool-a")
	podConfig := s.StartInstaller(ctx, t, "pool-a", "node-a")
	nodelabeltest.WaitForPolicy(ctx, t, podConfig, "node-a")
	api, err := nodelabel.NewClient(podConfig)
	if err != nil {
		t.Fatal(err)
	}
	labelled := func(node string) bool { return s.NodeLabels(ctx, t, node)[nodelabel.Key] == nodelabel.Value }

	original := relativeImports(readTestdata(t, "configs/default-2.4.toml"))
	h := newHost(t, original)
	d := installertest.StartDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	cri := verify.CRI{Socket: d.Socket}
	// labelledAtRestart records, at each containerd restart, whether node-a had the label.
	var labelledAtRestart []bool
	r := &installertest.Restarter{D: d, Before: func(int) { labelledAtRestart = append(labelledAtRestart, labelled("node-a")) }}
	o := h.options()
	o.Restarter, o.Verifier = r, cri
	o.NodeLabel = &installer.NodeLabel{Client: api, NodeName: "node-a"}
	as := func(node string) installer.Options {
		other := o
		other.NodeLabel = &installer.NodeLabel{Client: api, NodeName: node}
		return other
	}

	t.Run("install labels the node after runsc is verified", func(t *testing.T) {
		res, err := installer.Install(ctx, o)
		if err != nil {
			t.Fatalf("%v\n%s", err, h.logs)
		}
		if !reflect.DeepEqual(labelledAtRestart, []bool{false}) {
			t.Errorf("label at containerd restarts: %v, want one restart before the label was set", labelledAtRestart)
		}
		if !labelled("node-a") || labelled("node-b") {
			t.Errorf("labels node-a %v, node-b %v; want only node-a", s.NodeLabels(ctx, t, "node-a"), s.NodeLabels(ctx, t, "node-b"))
		}
		if err := cri.Verify(ctx, verify.Runsc); err != nil {
			t.Error(err)
		}
		if want := "; node node-a labelled " + nodelabel.Key + "=true"; !strings.HasSuffix(res.Summary(), want) {
			t.Errorf("summary %q does not end with %q", res.Summary(), want)
		}
		if !strings.Contains(h.logs.String(), "step=label-node") {
			t.Errorf("no label-node step in the log:\n%s", h.logs)
		}
	})

	t.Run("re-run changes nothing and keeps the label", func(t *testing.T) {
		res, err := installer.Install(ctx, o)
		if err != nil || len(res.Changed) != 0 || res.Restarts != 0 || !labelled("node-a") {
			t.Errorf("re-run: %s, %v; labelled %v", res.Summary(), err, labelled("node-a"))
		}
	})

	t.Run("a failed proof on a labelled node removes the label before runsc is withdrawn", func(t *testing.T) {
		// A later run (a pool's new runsc flags, say) whose sandbox proof fails on a node an earlier run labelled:
		// the scheduler must stop sending gVisor pods here before runsc goes. (Found on the real node,
		// test/e2e TestBrokenNodeOnRealNode: the label stayed while runsc was withdrawn.)
		failing := o
		failing.Prover = failingProver{}
		labelledAtRestart = nil
		_, err := installer.Install(ctx, failing)
		if err == nil || !strings.Contains(err.Error(), "runsc is unregistered") {
			t.Fatalf("install with a failing proof: %v, want a failure that withdraws runsc", err)
		}
		if labelled("node-a") {
			t.Error("node-a keeps its readiness label although runsc was withdrawn")
		}
		if !reflect.DeepEqual(labelledAtRestart, []bool{false}) {
			t.Errorf("label at containerd restarts: %v, want the label gone before the restart that unregisters runsc", labelledAtRestart)
		}
		if err := cri.Verify(ctx, verify.NoRunsc); err != nil {
			t.Error(err)
		}
		// The next good run registers and labels again, for the subtests below.
		if _, err := installer.Install(ctx, o); err != nil || !labelled("node-a") {
			t.Fatalf("install after the failed proof: %v, labelled %v", err, labelled("node-a"))
		}
	})

	t.Run("a GPU node whose GPU pods cannot run in gVisor loses the label, and gets it back with a supported driver", func(t *testing.T) {
		h.write(t, "/dev/nvidiactl", nil) // the pre-flight is injected: the installer only looks for the node path
		defer func() {
			// Back to a node without GPUs (runsc.toml without nvproxy) for the subtests below.
			testutil.Must(t, os.Remove(h.path("/dev/nvidiactl")))
			if _, err := installer.Install(ctx, o); err != nil || !labelled("node-a") {
				t.Fatalf("install after the GPU subtest: %v, labelled %v", err, labelled("node-a"))
			}
		}()
		gpuNode := o
		pf := &preflight{v: gpu.Verdict{Status: nodecontract.GPUUnknown, Driver: "570.211.01", Nearest: "570.195.03"}}
		gpuNode.GPU = pf
		res, err := installer.Install(ctx, gpuNode)
		if err != nil || labelled("node-a") || !strings.Contains(res.Summary(), "not labelled "+nodelabel.Key+": GPU pods cannot run in gVisor there (unknown)") {
			t.Errorf("GPU node with an unknown driver: %v, labelled %v, summary %q; want the install to pass and the label gone", err, labelled("node-a"), res.Summary())
		}
		pf.v = gpu.Verdict{Status: nodecontract.GPUSupported, Driver: "580.159.04"}
		if _, err := installer.Install(ctx, gpuNode); err != nil || !labelled("node-a") {
			t.Errorf("GPU node with a supported driver: %v, labelled %v; want the label back", err, labelled("node-a"))
		}
	})

	t.Run("install fails when the API server denies the label", func(t *testing.T) {
		// node-a's token may only label node-a: the admission policy denies the patch of node-b.
		before := installertest.HashTree(t, h.root)
		res, err := installer.Install(ctx, as("node-b"))
		if err == nil {
			t.Fatalf("install succeeded although the label was denied: %s", res.Summary())
		}
		if refusal.Is(err) || !apierrors.IsForbidden(err) {
			t.Errorf("want a failure (exit 1, pod not Ready) wrapping the Forbidden answer, got %v", err)
		}
		for _, want := range []string{"ValidatingAdmissionPolicy '" + nodelabeltest.PolicyName + "'", "may only label their own node (node-a), not node node-b",
			"runsc is installed and verified", "docs/readiness-gate.md"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error does not say %q: %v", want, err)
			}
		}
		if strings.Contains(res.FailedSummary(), "labelled") {
			t.Errorf("failed summary claims a label: %s", res.FailedSummary())
		}
		if labelled("node-b") {
			t.Error("node-b got the label")
		}
		if !reflect.DeepEqual(before, installertest.HashTree(t, h.root)) {
			t.Error("the node's files changed")
		}
	})

	t.Run("denied uninstall leaves runsc registered", func(t *testing.T) {
		// Unregistering runsc before the label is gone would let the scheduler send gVisor pods to a node without it.
		before := installertest.HashTree(t, h.root)
		_, err := installer.Uninstall(ctx, as("node-b"))
		if err == nil || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "runsc is still registered") {
			t.Fatalf("want the denial, saying runsc stays, got %v", err)
		}
		if !reflect.DeepEqual(before, installertest.HashTree(t, h.root)) {
			t.Error("the node's files changed")
		}
		if err := cri.Verify(ctx, verify.Runsc); err != nil {
			t.Error(err)
		}
	})

	t.Run("uninstall removes the label before unregistering runsc", func(t *testing.T) {
		labelledAtRestart = nil
		res, err := installer.Uninstall(ctx, o)
		if err != nil {
			t.Fatalf("%v\n%s", err, h.logs)
		}
		if !reflect.DeepEqual(labelledAtRestart, []bool{false}) {
			t.Errorf("label at containerd restarts: %v, want one restart after the label was removed", labelledAtRestart)
		}
		if labelled("node-a") {
			t.Error("node-a still labelled")
		}
		if err := cri.Verify(ctx, verify.NoRunsc); err != nil {
			t.Error(err)
		}
		if got := h.read(t, nodecontract.ContainerdConfigPath); string(got) != string(original) {
			t.Errorf("config.toml differs from the original:\n%s", got)
		}
		if want := "; label " + nodelabel.Key + " removed from node node-a"; !strings.HasSuffix(res.Summary(), want) {
			t.Errorf("summary %q does not end with %q", res.Summary(), want)
		}
	})

	t.Run("uninstall again", func(t *testing.T) {
		res, err := installer.Uninstall(ctx, o)
		if err != nil || res.Restarts != 0 || len(res.Changed) != 0 || labelled("node-a") {
			t.Errorf("second uninstall: %s, %v", res.Summary(), err)
		}
	})
}

// TestLabelNodeNeedsVerification: a label promises a runsc that works, so Install refuses to run with NodeLabel but
// without a restarter and CRI verifier, before touching the node; so does a NodeLabel without node name or client.
func TestLabelNodeNeedsVerification(t *testing.T) {
	h := newHost(t, readTestdata(t, "configs/gardener-v2.toml"))
	before := installertest.HashTree(t, h.root)
	o := h.options()
	o.NodeLabel = &installer.NodeLabel{}
	_, err := installer.Install(context.Background(), o)
	for _, want := range []string{"--label-node: NODE_NAME is not set", "no API client", "--label-node needs --restart=systemd"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	if _, err := installer.Uninstall(context.Background(), o); err == nil || strings.Contains(err.Error(), "--restart=systemd") {
		t.Errorf("uninstall: %v; want the missing name and client only (removing a label needs no verification)", err)
	}
	if !reflect.DeepEqual(before, installertest.HashTree(t, h.root)) {
		t.Error("the node changed")
	}
}

// failingProver is a sandbox proof that fails, as runsc does on a node it cannot start a sandbox on.
type failingProver struct{}

func (failingProver) Prove(context.Context) (sandbox.Proof, error) {
	return sandbox.Proof{}, errors.New("gVisor sandbox did not start: platform kvm: /dev/kvm: no such file or directory")
}
