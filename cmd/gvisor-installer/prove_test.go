// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

func runProveCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"prove"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestProveUsage: arguments and unknown flags are usage errors (exit 2).
func TestProveUsage(t *testing.T) {
	for _, args := range [][]string{{"extra"}, {"--no-such-flag"}} {
		if code, _, errOut := runProveCmd(t, args...); code != 2 {
			t.Errorf("prove %q: exit %d, want 2\n%s", args, code, errOut)
		}
	}
}

// TestProveNothingInstalled: on a node without containerd's socket and without gVisor's files, prove exits 1 and
// its last stderr line (and --termination-message) is the one-line reason: the missing files first, then the
// CRI's error, then which installer failed.
func TestProveNothingInstalled(t *testing.T) {
	root := t.TempDir()
	msg := filepath.Join(t.TempDir(), "reason")
	code, out, errOut := runProveCmd(t, "--host-root="+root, "--prove-timeout=5s", "--registration-timeout=1s", "--termination-message="+msg)
	reason := lastLine(errOut)
	if code != 1 || out != "" {
		t.Fatalf("prove on an empty node: exit %d, stdout %q, want exit 1 and no stdout\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"gVisor sandbox did not start: runsc is missing at /var/bin/containerruntimes/runsc; " +
			"containerd-shim-runsc-v1 is missing at /var/bin/containerruntimes/containerd-shim-runsc-v1; " +
			"runsc.toml is missing at /etc/containerd/runsc.toml; ",
		filepath.Join(root, "run/containerd/containerd.sock"),
	} {
		if !strings.Contains(reason, want) {
			t.Errorf("prove's reason %q lacks %q", reason, want)
		}
	}
	if !strings.HasSuffix(reason, " prove failed") {
		t.Errorf("prove's reason %q does not end with the installer's \"<version> prove failed\"", reason)
	}
	if got, err := os.ReadFile(msg); err != nil || string(got) != reason+"\n" {
		t.Errorf("--termination-message = %q (%v), want the reason line %q", got, err, reason)
	}
}

// TestProveRefusesContainerd16: on a real containerd 1.6 (which cannot start this gVisor shim), prove refuses by
// its version before any sandbox, with install's words.
func TestProveRefusesContainerd16(t *testing.T) {
	c := installertest.Release(t, "1.6")
	root := t.TempDir()
	empty := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	installertest.StartDaemon(t, c, empty, root)
	code, _, errOut := runProveCmd(t, "--host-root="+root, "--registration-timeout=1s")
	reason := lastLine(errOut)
	if code != 1 || !strings.HasPrefix(reason, "containerd "+c.Version) || !strings.Contains(reason, "is not supported (minimum containerd 1.7)") {
		t.Errorf("prove on %s: exit %d, reason %q; want exit 1 and \"containerd %s... is not supported (minimum containerd 1.7...)\"", c, code, reason, c.Version)
	}
}

// TestProveRefusesCgroupV1WithSystemdDriver: on a real containerd 2.4 with the systemd cgroup driver over a cgroup v1
// hierarchy (a tmpfs at the node's /sys/fs/cgroup), prove refuses with install's reason and fix before any
// sandbox: in the OSC mode node-agent has already registered runsc, and the proof's verdict is what says why the
// node is not ready.
func TestProveRefusesCgroupV1WithSystemdDriver(t *testing.T) {
	c := installertest.Release(t, "2.4")
	if os.Geteuid() != 0 {
		t.Skip("mounting the tmpfs of a cgroup v1 root needs root")
	}
	root := t.TempDir()
	cgroupRoot := filepath.Join(root, "sys/fs/cgroup")
	if err := os.MkdirAll(cgroupRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", cgroupRoot, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatalf("mounting a tmpfs as the cgroup v1 root: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(cgroupRoot, unix.MNT_DETACH) })
	config := filepath.Join(t.TempDir(), "config.toml")
	systemd := "version = 3\n[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]\n  SystemdCgroup = true\n"
	if err := os.WriteFile(config, []byte(systemd), 0o644); err != nil {
		t.Fatal(err)
	}
	installertest.StartDaemon(t, c, config, root)
	code, _, errOut := runProveCmd(t, "--host-root="+root, "--registration-timeout=1s")
	reason := lastLine(errOut)
	for _, want := range []string{"refusing this node's cgroups (cgroup v1 with the systemd cgroup driver)", "fix: a machine image with cgroup v2"} {
		if code != 1 || !strings.Contains(reason, want) {
			t.Errorf("prove on cgroup v1 with the systemd driver: exit %d, reason %q; want exit 1 and %q", code, reason, want)
		}
	}
}
