// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDaemonPathsArePrivate: two daemons of each release run at once on the release's own `config default`, as
// the tests of several packages do under `go test ./...`. That config names fixed node paths: 2.4's the ttrpc
// socket /run/containerd/containerd.sock.ttrpc, 2.x's NRI socket /var/run/nri/nri.sock, every release's opt
// directory /opt/containerd. Every socket either daemon listens on must be its own: under its own temporary
// directories, or at a path whose file is not the machine's, and never the other daemon's; its /run/containerd
// and /opt/containerd are not the machine's. (Two daemons sharing the ttrpc socket made one of them exit at start
// or lose its ttrpc endpoint to the other.)
func TestDaemonPathsArePrivate(t *testing.T) {
	for _, c := range Containerds(t) {
		t.Run(c.String(), func(t *testing.T) {
			config, text := writeDefaultConfig(t, c)
			if c.Major == 2 && c.Minor >= 4 && !strings.Contains(text, "/run/containerd/containerd.sock.ttrpc") {
				t.Fatalf("%s's default config names no fixed ttrpc address: this test no longer covers that case", c)
			}
			a := StartDaemon(t, c, config, shortTempDir(t))
			b := StartDaemon(t, c, config, shortTempDir(t))
			socketsA, socketsB := servedSockets(t, a), servedSockets(t, b)
			checkPrivate(t, a, socketsA)
			checkPrivate(t, b, socketsB)
			for _, sa := range socketsA {
				for _, sb := range socketsB {
					if SameFileFor(a.cmd.Process.Pid, sa, b.cmd.Process.Pid, sb) {
						t.Errorf("both daemons serve one socket file: %s (first) is %s (second)", sa, sb)
					}
				}
			}
		})
	}
}

// writeDefaultConfig writes c's `containerd config default` to a temporary file and returns its path and text.
func writeDefaultConfig(t *testing.T, c Containerd) (path, text string) {
	t.Helper()
	out, err := exec.Command(c.Bin(), "config", "default").Output()
	if err != nil {
		t.Fatalf("%s config default: %v", c, err)
	}
	path = filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, string(out)
}

// shortTempDir is a host root short enough for the sockets under it (108-byte limit), removed after the test.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hr-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// servedSockets returns the unix sockets d listens on, once its ttrpc socket is among them (the daemon answers CRI
// before some releases open every listener): without it the test would prove nothing about ttrpc.
func servedSockets(t *testing.T, d *Daemon) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		sockets, err := ListeningSockets(d.cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sockets {
			if strings.HasSuffix(s, ".ttrpc") {
				t.Logf("%s listens on %v", d.C, sockets)
				return sockets
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s listens on no ttrpc socket within 5s: %v", d.C, sockets)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkPrivate fails the test for each of d's sockets outside its temporary directories that is the machine's
// file, and when d's /run/containerd or /opt/containerd is the machine's.
func checkPrivate(t *testing.T, d *Daemon, sockets []string) {
	t.Helper()
	pid := d.cmd.Process.Pid
	own := []string{filepath.Dir(d.Socket) + "/", d.dir + "/"}
	for _, s := range sockets {
		if strings.HasPrefix(s, own[0]) || strings.HasPrefix(s, own[1]) {
			continue // the test dials these; they are the daemon's alone
		}
		if shared, err := SharedWithMachine(pid, s); err != nil || shared {
			t.Errorf("%s serves %s on the machine's own path (shared with every other daemon), err %v", d.C, s, err)
		}
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/root/opt/containerd", pid)); err != nil {
		t.Errorf("%s created no /opt/containerd (its opt plugin): %v", d.C, err)
	}
	for _, p := range []string{"/run/containerd", "/opt/containerd"} {
		if shared, err := SharedWithMachine(pid, p); err != nil || shared {
			t.Errorf("%s's %s is the machine's, err %v", d.C, p, err)
		}
	}
}
