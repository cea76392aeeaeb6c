// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installertest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSharedWithMachineResolvesInTheProcess: a path through an absolute symlink (as /var/run -> /run) is
// resolved in the process's mount namespace. Here <tmp>/link -> <tmp>/target, and the process has a tmpfs of its
// own on <tmp>/target: its <tmp>/link/f is not the machine's <tmp>/link/f, although a plain stat through
// /proc/PID/root follows the symlink on the machine and finds the machine's file.
func TestSharedWithMachineResolvesInTheProcess(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", `mount -n -t tmpfs gvisor-test "$0" && touch "$0/f" && echo ready && exec sleep 60`, target)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if sc := bufio.NewScanner(stdout); !sc.Scan() || sc.Text() != "ready" {
		t.Fatal("the process did not mount its tmpfs")
	}
	pid := cmd.Process.Pid

	path := filepath.Join(dir, "link/f")
	if shared, err := SharedWithMachine(pid, path); err != nil || shared {
		t.Errorf("SharedWithMachine(%s) = %v, %v; want false: the process's file is on its own tmpfs", path, shared, err)
	}
	if shared, err := SharedWithMachine(pid, filepath.Join(dir, "missing")); err != nil || shared {
		t.Errorf("a missing path: %v, %v; want not shared", shared, err)
	}
	if shared, err := SharedWithMachine(pid, dir); err != nil || !shared {
		t.Errorf("SharedWithMachine(%s) = %v, %v; want true: the process sees the machine's directory", dir, shared, err)
	}
	// The pitfall statIn avoids: the plain stat finds the machine's file.
	plain, err1 := os.Stat(fmt.Sprintf("/proc/%d/root%s", pid, path))
	machine, err2 := os.Stat(path)
	if err1 != nil || err2 != nil || !os.SameFile(plain, machine) {
		t.Logf("a plain stat through /proc/PID/root no longer follows absolute symlinks on the machine (%v, %v)", err1, err2)
	}
}
