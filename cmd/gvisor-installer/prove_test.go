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
