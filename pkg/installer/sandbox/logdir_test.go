// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLogDirs: containerd sees the proof's directory at /run/containerd/... when the socket is the node's under a
// host root, at the installer's own path otherwise; removing a proof's directory removes the empty parents up to
// containerd's run directory and keeps another proof's.
func TestLogDirs(t *testing.T) {
	root := t.TempDir()
	sock := filepath.Join(root, "run/containerd/containerd.sock")
	d, err := newLogDir(sock, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "run/containerd/gvisor-installer/proof/u1"); d.host != want || d.node != "/run/containerd/gvisor-installer/proof/u1" {
		t.Errorf("host %s node %s, want %s and /run/containerd/gvisor-installer/proof/u1", d.host, d.node, want)
	}
	if other := logDirs(filepath.Join(root, "c.sock")); other.node != other.host || other.host != filepath.Join(root, proofLogs) {
		t.Errorf("a socket elsewhere: host %s node %s", other.host, other.node)
	}
	d2, err := newLogDir(sock, "u2")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(d.host, panicLog), "x")
	if err := d.remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d2.host); err != nil {
		t.Errorf("another proof's directory went: %v", err)
	}
	if err := d2.remove(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(root, "run/containerd"))
	if err != nil || len(entries) != 0 {
		t.Errorf("left in the run directory: %v %v", entries, err)
	}
	if _, err := newLogDir(sock, "u3"); err != nil {
		t.Fatal(err)
	}
	if err := removeAllLogDirs(sock); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "run/containerd")); len(entries) != 0 {
		t.Errorf("removeAllLogDirs left %v", entries)
	}
}
