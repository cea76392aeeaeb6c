// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/releases"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestReleaseUpgradeKeepsRunningSandboxes moves a node with a running gVisor pod from release A to release B, two
// builds whose every file differs: no containerd restart, the running pod's sandbox stays on A's runsc and is still
// exec'd, stopped and removed, and a new pod runs on B's runsc. A stays on the node while its pod runs.
func TestReleaseUpgradeKeepsRunningSandboxes(t *testing.T) {
	s := newSuite(t)
	rebuild := filepath.Join(t.TempDir(), "gvisor-rebuild")
	installertest.RealReleaseFrom(t, rebuild, realcomponents.GVisorRebuildDir(t))
	sumA, sumB := fileSum(t, filepath.Join(s.release, nodecontract.Runsc)), fileSum(t, filepath.Join(rebuild, nodecontract.Runsc))
	if sumA == sumB {
		t.Fatalf("the rebuild's runsc is the release's: the test needs two different builds")
	}
	s.releases(t, nil, func(t *testing.T, c installertest.Containerd) {
		ctx := context.Background()
		n := s.newNode(t, c, nodetest.Config{}, "[runsc_config]\n")
		n.install(t, 1)
		podA, ctrA := n.GVisorPod(t, false)
		assertRunsc(t, n, podA, sumA, "A")

		n.o.Source = rebuild
		starts := n.Starts()
		n.install(t, 0)
		if n.Starts() != starts {
			t.Errorf("the release change (re)started containerd %d times", n.Starts()-starts)
		}
		assertRunsc(t, n, podA, sumA, "A, after the switch to B")
		if _, err := n.ExecSync(ctx, ctrA, "true"); err != nil {
			t.Errorf("exec into the sandbox started with release A, after the switch to B: %v", err)
		}
		podB, _ := n.GVisorPod(t, false)
		assertRunsc(t, n, podB, sumB, "B")
		if got := releaseDirs(t, n); len(got) != 2 {
			t.Errorf("releases on the node = %v, want A (its pod runs) and B", got)
		}
		if err := n.StopAndRemove(ctx, podA); err != nil {
			t.Errorf("stopping and removing the pod of release A after the switch to B: %v", err)
		}
		if err := n.StopAndRemove(ctx, podB); err != nil {
			t.Errorf("stopping and removing the pod of release B: %v", err)
		}
		st := nodeState(t, n)
		if len(st.Good) != 2 {
			t.Errorf("proven releases recorded = %v, want B then A", st.Good)
		}
	})
}

// TestBrokenReleaseKeepsLastGood puts a release whose runsc cannot start a sandbox over a working one on a node
// with a running gVisor pod: the install fails naming the release and what the node runs, the node is back on the
// working release (still registered, no containerd restart), the running pod is still exec'd and a new gVisor pod
// starts; the next run does not try the failed release again before its back-off.
func TestBrokenReleaseKeepsLastGood(t *testing.T) {
	s := newSuite(t)
	broken := filepath.Join(t.TempDir(), "gvisor-broken")
	installertest.BrokenRelease(t, broken)
	sumA := fileSum(t, filepath.Join(s.release, nodecontract.Runsc))
	s.releases(t, nil, func(t *testing.T, c installertest.Containerd) {
		ctx := context.Background()
		n := s.newNode(t, c, nodetest.Config{}, "[runsc_config]\n")
		good := n.install(t, 1)
		pod, ctr := n.GVisorPod(t, false)
		goodID := currentRelease(t, n)

		n.o.Source = broken
		before := n.r.Restarts
		res, err := installer.Install(ctx, n.o)
		t.Logf("%v", err)
		if err == nil || !strings.Contains(err.Error(), "failed its proof") || !strings.Contains(err.Error(), "running release "+goodID) {
			t.Fatalf("install of the broken release: %v, want a failure naming it and the release the node runs (%s)", err, goodID)
		}
		if !strings.Contains(res.FailedSummary(), "running release "+goodID) {
			t.Errorf("the termination line does not say what the node runs: %s", res.FailedSummary())
		}
		if n.r.Restarts != before {
			t.Errorf("the failed release change restarted containerd %d times", n.r.Restarts-before)
		}
		if got := currentRelease(t, n); got != goodID {
			t.Errorf("current release after the failed one = %s, want %s (%s)", got, goodID, good.Summary())
		}
		if _, err := n.ExecSync(ctx, ctr, "true"); err != nil {
			t.Errorf("exec into the running gVisor pod after the failed release: %v", err)
		}
		again, _ := n.GVisorPod(t, false)
		assertRunsc(t, n, again, sumA, "the last good release")

		_, err = installer.Install(ctx, n.o)
		if err == nil || !strings.Contains(err.Error(), "(1 failures, the last at ") {
			t.Errorf("second run with the failed release: %v, want it refused from memory before its back-off", err)
		}
		if n.r.Restarts != before {
			t.Errorf("the remembered failure restarted containerd")
		}
		testutil.Must(t, n.StopAndRemove(ctx, pod))
	})
}

func assertRunsc(t *testing.T, n *node, pod *nodetest.Pod, want, release string) {
	t.Helper()
	got, err := n.RunscSandboxExeSum(pod.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("the sandbox of pod %s runs runsc sha512:%.12s, want release %s's sha512:%.12s", pod.ID, got, release, want)
	}
}

func currentRelease(t *testing.T, n *node) string {
	t.Helper()
	target, err := os.Readlink(n.HostPath(path.Join(n.BinDir(), nodecontract.CurrentLink)))
	testutil.Must(t, err)
	return nodecontract.IDOfTarget(target)
}

func releaseDirs(t *testing.T, n *node) []string {
	t.Helper()
	entries, err := os.ReadDir(n.HostPath(path.Join(n.BinDir(), nodecontract.ReleasesDir)))
	testutil.Must(t, err)
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.Name())
	}
	return ids
}

func nodeState(t *testing.T, n *node) releases.State {
	t.Helper()
	st, err := releases.LoadState(n.HostPath(path.Join(n.BinDir(), nodecontract.StateFile)))
	testutil.Must(t, err)
	return st
}

func fileSum(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	testutil.Must(t, err)
	sum := sha512.Sum512(data)
	return hex.EncodeToString(sum[:])
}
