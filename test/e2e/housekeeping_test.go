// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// proofs is how many sandbox proofs TestProofBesideKubeletHousekeeping runs: the kubelet's housekeeping (every
// 2 s) meets a proof sandbox (about 0.2 s) in roughly one proof of ten.
const proofs = 25

// orphanKill is what the kubelet logs (at --v=2) when its housekeeping stops a pod sandbox it did not create
// (pkg/kubelet/kubelet_pods.go HandlePodCleanups): the proof sandbox is one.
const orphanKill = "Clean up containers for orphaned pod we had not seen before"

// TestProofBesideKubeletHousekeeping runs the installer's sandbox proof (pkg/installer/sandbox, as the installation
// pod runs it) over and over on a real node whose kubelet runs its housekeeping beside it, and shows what the
// kubelet does to it: it stops proof sandboxes it finds running (it kills every runtime pod it does not know), and
// every proof still succeeds, because a proof whose sandbox was stopped under it starts another.
func TestProofBesideKubeletHousekeeping(t *testing.T) {
	releases := kubenode.Releases(t)
	c := releases[len(releases)-1]
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	n, shoot := onRealNode(ctx, t, c, realcomponents.Helm(t), thisChart, ourImages(t), nil)
	_, err := e2e.InstallationPod(ctx, n.Client(), shoot.Worker.Name, nodeName, 3*time.Minute, e2e.PodReady)
	testutil.Must(t, err)

	killsBefore := strings.Count(n.Log("kubelet"), orphanKill)
	var slowest time.Duration
	for i := range proofs {
		proof, err := sandbox.CRI{Socket: n.CRISocket(), Creator: "TestProofBesideKubeletHousekeeping"}.Prove(ctx)
		if err != nil {
			t.Fatalf("proof %d of %d beside the kubelet: %v", i+1, proofs, err)
		}
		slowest = max(slowest, proof.Total)
		time.Sleep(300 * time.Millisecond) // spread the proofs over the kubelet's housekeeping period
	}
	kills := strings.Count(n.Log("kubelet"), orphanKill) - killsBefore
	t.Logf("%d proofs beside the kubelet: all succeeded, slowest %s; the kubelet's housekeeping stopped %d sandboxes it did not know", proofs, slowest.Round(time.Millisecond), kills)
}
