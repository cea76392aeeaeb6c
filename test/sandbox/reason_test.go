// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"errors"
	"os"
	"path"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// proofLogs is where the proof sandboxes' log directories lie on the node (pkg/installer/sandbox, logdir.go).
const proofLogs = "/run/containerd/gvisor-installer"

// TestProofSaysWhy breaks gVisor on a real node of every supported release the ways the field does, and checks
// that the installer's proof (sandbox.CRI, as Install runs it) fails with the reason in runsc's own words, not
// containerd's bare "EOF", and leaves neither a sandbox nor its log directory behind:
//   - runsc flag enable-core-tags on a kernel without core scheduling: `runsc boot` exits with a Fatalf
//     (containerd: "waiting for sandbox to start: EOF"; the panic log has the reason). Skipped on kernels that
//     have core scheduling, where the sandbox starts.
//   - platform kvm where /dev/kvm exists but the sentry cannot run on it (this machine, a nested-virtualisation
//     VM): either the KVM platform runs out of memory slots and the Go runtime dies, or `runsc boot` spins
//     without a word until the proof's deadline, which the proof then names as a hang. Where KVM works, the
//     sandbox starts and the case only logs that.
//   - platform kvm on a node without /dev/kvm (hideKVM): runsc create fails and containerd's error already
//     carries runsc's reason; the proof does not repeat it.
//   - a truncated runsc (an interrupted copy): it dies before it writes any log; containerd's words stay.
//   - the sandbox image missing (removed, and not pullable from the node): containerd's words stay.
func TestProofSaysWhy(t *testing.T) {
	s := newSuite(t)
	s.releases(t, nil, func(t *testing.T, c installertest.Containerd) {
		n := s.newNode(t, c, nodetest.Config{}, "[runsc_config]\n")
		n.install(t, 1)
		assertClean(t, n)

		t.Run("enable-core-tags", func(t *testing.T) {
			if coreScheduling() {
				t.Skip("the kernel has core scheduling: runsc can core-tag its sentry")
			}
			err := proveWith(t, n, "  enable-core-tags = \"true\"\n")
			assertReason(t, err, "EOF", "; runsc: Failed to core tag sentry")
		})
		t.Run("kvm-unusable", func(t *testing.T) {
			// A working KVM starts the sandbox in a second; 15 s, not the installer's minute, bounds a hang.
			err := proveWithin(t, n, "  platform = \"kvm\"\n", 15*time.Second)
			if err == nil {
				t.Skip("the KVM platform works on this machine")
			}
			// Which of its two failures the sentry shows differs by release and run on the same machine: it
			// dies (the panic log names the KVM platform) or spins at boot until the proof's deadline.
			if strings.Contains(err.Error(), "the sandbox did not start") {
				assertReason(t, err, "DeadlineExceeded", "runsc logged no reason: its sandbox neither started nor died")
				return
			}
			assertReason(t, err, "EOF", "; runsc: ", "kvm")
		})
		t.Run("no-dev-kvm", func(t *testing.T) {
			hideKVM(t, n)
			err := proveWith(t, n, "  platform = \"kvm\"\n")
			assertReason(t, err, "error opening KVM device file (/dev/kvm): no such file or directory")
			if strings.Contains(err.Error(), "; runsc: ") {
				t.Errorf("runsc's reason is repeated: %v", err)
			}
		})
		t.Run("truncated-runsc", func(t *testing.T) {
			// The current release's runsc, the file the handler runs (runsc.toml's binary_name).
			runsc, err := hostfs.ResolveUnder(n.HostRoot(), path.Join(n.BinDir(), nodecontract.ReleaseDir(currentRelease(t, n)), nodecontract.Runsc))
			testutil.Must(t, err)
			whole, err := os.ReadFile(runsc)
			if err != nil {
				t.Fatal(err)
			}
			replace(t, runsc, whole[:1<<20])
			defer replace(t, runsc, whole)
			err = proveWith(t, n, "")
			assertReason(t, err, "runsc did not terminate successfully")
		})
		t.Run("no-sandbox-image", func(t *testing.T) {
			removeImage(t, n, nodetest.PauseImage)
			err := proveWith(t, n, "")
			assertReason(t, err, nodetest.PauseImage)
			if strings.Contains(err.Error(), "; runsc: ") {
				t.Errorf("a sandbox that never reached runsc has a runsc reason: %v", err)
			}
		})
	})
}

// proveWith writes runsc.toml with the flags and runs the installer's proof, which must fail; it checks that the
// node is clean afterwards.
func proveWith(t *testing.T, n *node, flags string) error {
	t.Helper()
	return proveWithin(t, n, flags, 0)
}

// proveWithin is proveWith with the proof's deadline (0: the installer's): a hung sandbox costs the test that long.
func proveWithin(t *testing.T, n *node, flags string, timeout time.Duration) error {
	t.Helper()
	// The handler's ConfigPath links to the current release's runsc.toml: write that one, as a flag change does.
	file, err := hostfs.ResolveUnder(n.HostRoot(), runscconfig.NodePath)
	testutil.Must(t, err)
	if err := os.WriteFile(file, runscconfig.ForRelease(n.BinDir(), currentRelease(t, n), []byte("[runsc_config]\n"+flags)), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	prover, ok := n.o.Prover.(sandbox.CRI)
	if !ok {
		t.Fatalf("the installer's prover is a %T, want sandbox.CRI", n.o.Prover)
	}
	if timeout > 0 {
		prover.Timeout = timeout
	}
	proof, err := prover.Prove(context.Background())
	t.Logf("%s, runsc flags %q, after %s: %v", n.C, flags, time.Since(start).Round(time.Millisecond), err)
	assertClean(t, n)
	if err == nil && !strings.Contains(flags, "kvm") {
		t.Fatalf("the proof passed: %s", proof)
	}
	return err
}

// assertReason checks that err says all of want.
func assertReason(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the proof passed, want an error saying %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the proof's error does not say %q: %v", w, err)
		}
	}
}

// assertClean checks that no proof sandbox and no proof log directory is left on the node.
func assertClean(t *testing.T, n *node) {
	t.Helper()
	if _, err := os.Lstat(n.HostPath(proofLogs)); !errors.Is(err, os.ErrNotExist) {
		entries, _ := os.ReadDir(n.HostPath(proofLogs))
		t.Errorf("%s is left on the node (%v): %v", proofLogs, err, entries)
	}
	conn, err := verify.Dial(n.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	list, err := runtimeapi.NewRuntimeServiceClient(conn).ListPodSandbox(context.Background(), &runtimeapi.ListPodSandboxRequest{
		Filter: &runtimeapi.PodSandboxFilter{LabelSelector: map[string]string{sandbox.LabelKey: "gvisor-installer"}},
	})
	if err != nil || len(list.GetItems()) != 0 {
		t.Errorf("proof sandboxes left: %v (%v)", list.GetItems(), err)
	}
}

// replace writes a new file at path (a new inode: the old runsc may still be executing).
func replace(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// removeImage removes the image from the node over CRI; the node cannot pull it again (registry.invalid, no
// network).
func removeImage(t *testing.T, n *node, image string) {
	t.Helper()
	conn, err := verify.Dial(n.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := runtimeapi.NewImageServiceClient(conn).RemoveImage(context.Background(), &runtimeapi.RemoveImageRequest{
		Image: &runtimeapi.ImageSpec{Image: image},
	}); err != nil {
		t.Fatalf("removing %s from the %s node: %v", image, n.C, err)
	}
}

// coreScheduling reports whether the kernel supports core scheduling (prctl PR_SCHED_CORE; EINVAL without
// CONFIG_SCHED_CORE), which runsc's enable-core-tags needs.
func coreScheduling() bool {
	var cookie uint64
	const prSchedCoreGet, pidTypePID = 0, 0
	return unix.Prctl(unix.PR_SCHED_CORE, prSchedCoreGet, 0, pidTypePID, uintptr(unsafe.Pointer(&cookie))) == nil
}
