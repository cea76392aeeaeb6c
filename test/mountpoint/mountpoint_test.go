// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package mountpoint_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/mountpoint"
)

// private gives the test its own lock and registry (they live in TMPDIR), so that the harnesses of test packages
// running at the same time neither hold its leases nor see its directories.
func private(t *testing.T) string {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	return t.TempDir()
}

func exists(t *testing.T, dir string) bool {
	t.Helper()
	_, err := os.Stat(dir)
	return err == nil
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestLastLeaseRemoves: a directory one lease created stays while any lease is held (another harness's mount may
// be on it) and goes with the last release, its created parents with it; what existed before stays.
func TestLastLeaseRemoves(t *testing.T) {
	root := private(t)
	dir := filepath.Join(root, "var/bin/containerruntimes")
	first, err := mountpoint.Acquire(dir)
	must(t, err)
	second, err := mountpoint.Acquire(dir, filepath.Join(root, "etc/containerd"))
	must(t, err)
	must(t, first.Release())
	if !exists(t, dir) {
		t.Fatalf("%s was removed while another lease is held", dir)
	}
	if left, err := mountpoint.Leftover(); err != nil || left != nil {
		t.Errorf("Leftover with a lease held = %v, %v; want nothing", left, err)
	}
	must(t, second.Release())
	for _, d := range []string{dir, filepath.Join(root, "var"), filepath.Join(root, "etc")} {
		if exists(t, d) {
			t.Errorf("%s survived the last release", d)
		}
	}
	if !exists(t, root) {
		t.Errorf("%s existed before and was removed", root)
	}
	if left, err := mountpoint.Leftover(); err != nil || len(left) > 0 {
		t.Errorf("Leftover = %v, %v; want nothing", left, err)
	}
	must(t, second.Release()) // a second release is a no-op
}

// TestKeepsWhatIsMountedElsewhere: with no lease held, a created directory that is a mount point in another mount
// namespace (a process outside the leases) stays, and the release after that mount is gone removes it.
func TestKeepsWhatIsMountedElsewhere(t *testing.T) {
	root := private(t)
	dir := filepath.Join(root, "opt/containerd")
	lease, err := mountpoint.Acquire(dir)
	must(t, err)
	src := t.TempDir()
	holder := exec.Command("unshare", "-m", "--propagation", "private", "/bin/sh", "-c", `mount -n --bind "$0" "$1" && echo ready && exec sleep 60`, src, dir)
	stdout, err := holder.StdoutPipe()
	must(t, err)
	holder.Stderr = os.Stderr
	must(t, holder.Start())
	t.Cleanup(func() { _ = holder.Process.Kill(); _ = holder.Wait() })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the mount in another namespace: %q %v", line, err)
	}
	if !mountpoint.Mounted(dir) {
		t.Fatalf("Mounted(%s) = false with a mount on it in another namespace", dir)
	}
	must(t, lease.Release())
	if !exists(t, dir) {
		t.Fatalf("%s was removed while mounted in another namespace (the mount there is detached by that)", dir)
	}
	_ = holder.Process.Kill()
	_ = holder.Wait()
	again, err := mountpoint.Acquire()
	must(t, err)
	must(t, again.Release())
	if exists(t, dir) {
		t.Errorf("%s survived the release after its mount was gone", dir)
	}
}
