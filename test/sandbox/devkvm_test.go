// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// hideKVM makes the node a node without /dev/kvm, as most cloud VMs are: in the node's mount namespace (private:
// nothing reaches the machine, and it ends with the node) /dev becomes a tmpfs carrying bind mounts of every entry
// of the machine's /dev except kvm. Sandboxes started afterwards see no /dev/kvm; the machine keeps its own.
func hideKVM(t *testing.T, n *node) {
	t.Helper()
	pid, err := containerdPID(n)
	if err != nil {
		t.Fatal(err)
	}
	const script = `set -e
orig=/run/gvisor-test-dev
mkdir "$orig"
mount --rbind /dev "$orig"
mount -t tmpfs -o mode=755,nosuid tmpfs /dev
cd "$orig"
for e in * .[!.]*; do
	[ -e "$e" ] || [ -L "$e" ] || continue
	[ "$e" = kvm ] && continue
	if [ -L "$e" ]; then cp -P "$e" /dev/
	elif [ -d "$e" ]; then mkdir "/dev/$e"; mount --rbind "$e" "/dev/$e"
	else : >"/dev/$e"; mount --bind "$e" "/dev/$e"
	fi
done
test ! -e /dev/kvm
`
	out, err := exec.Command("nsenter", "-t", fmt.Sprint(pid), "-m", "sh", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("hiding /dev/kvm in the %s node: %v\n%s", n.C, err, out)
	}
}

// containerdPID finds the node's containerd: the process running the release's binary whose /run/containerd is
// the node's (the socket seen through its root is the node's socket), so its mount namespace is the node's.
func containerdPID(n *node) (int, error) {
	want, err := os.Stat(n.Socket())
	if err != nil {
		return 0, err
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || strings.Split(string(raw), "\x00")[0] != n.C.Bin() {
			continue
		}
		st, err := os.Stat(filepath.Join("/proc", e.Name(), "root", nodetest.SocketPath))
		if err == nil && os.SameFile(st, want) {
			var pid int
			_, err := fmt.Sscan(e.Name(), &pid)
			return pid, err
		}
	}
	return 0, fmt.Errorf("no %s process serves %s", n.C, n.Socket())
}
