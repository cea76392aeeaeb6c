// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/mountpoint"
)

// TestNodeIsolationAndCleanup checks the harness itself on the newest release: the node starts on the release's
// adjusted default config; a runc pod on the bridge network runs the busybox image in the node's cgroup, while the
// machine's own /etc/containerd, /run and network stay as they were; after the node's cleanup nothing of it is
// left: no process, no cgroup, no directory, no mount point the harness created.
func TestNodeIsolationAndCleanup(t *testing.T) {
	releases := installertest.Containerds(t)
	c := releases[len(releases)-1]
	tools := NodeTools(t)
	imgs := BuildImages(t, tools)
	hostConfig, _ := os.ReadFile(ConfigPath) // the machine's own (Debian's package may have put one there)
	var n *Node
	t.Run(c.String(), func(t *testing.T) {
		n = New(t, Config{Containerd: c, Tools: tools, Images: imgs})
		ctx := context.Background()
		pod, err := n.RunPod(ctx, PodSpec{})
		if err != nil {
			t.Fatal(err)
		}
		id, err := n.StartContainer(ctx, pod, BusyboxImage, "sh", "-c", "cat /proc/version; ip -4 addr show eth0; exec sleep 600")
		if err != nil {
			t.Fatal(err)
		}
		log, err := n.ContainerLog(ctx, id, "inet 10.88.0.")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(log, "gvisor") {
			t.Errorf("a runc container reports a gVisor kernel:\n%s", log)
		}
		if out, err := n.ExecSync(ctx, id, "cat", "/proc/self/cgroup"); err != nil || !strings.Contains(out, n.CgroupParent()+"/") {
			t.Errorf("the container is not below the node's cgroup parent %s: %v\n%s", n.CgroupParent(), err, out)
		}
		if _, err := net.InterfaceByName(n.bridge); err == nil {
			t.Errorf("the node's bridge %s is in the test's network namespace", n.bridge)
		}
		if _, err := os.Stat(SocketPath); err == nil {
			t.Errorf("%s exists outside the node", SocketPath)
		}
		if got, _ := os.ReadFile(ConfigPath); !bytes.Equal(got, hostConfig) {
			t.Errorf("the machine's %s changed", ConfigPath)
		}
		checkPrivateSockets(t, n)
	})
	if n == nil || n.holder == nil {
		t.Fatal("the node did not start")
	}
	select {
	case err := <-n.holder.exited: // reaped
		n.holder.exited <- err
	default:
		t.Errorf("the node's holder (pid %d) survived the cleanup", n.holder.pid)
	}
	if left := n.nodeProcs(); len(left) > 0 {
		t.Errorf("processes of the node survived the cleanup: %v", procNames(left))
	}
	for _, d := range []string{n.hostRoot, n.work} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s survived the cleanup", d)
		}
	}
	if left, err := mountpoint.Leftover(); err != nil || len(left) > 0 {
		t.Errorf("mount points the harness created survived the cleanup: %v %v", left, err)
	}
	if m, _ := filepath.Glob("/sys/fs/cgroup/*" + n.cgroupParent); len(m) > 0 {
		t.Errorf("cgroups of the node survived its cleanup: %v", m)
	}
}

// checkPrivateSockets fails the test for each unix socket a process of the node (containerd with its ttrpc and NRI
// sockets, the pod's shim) listens on that is the machine's file at that path: every socket must be the node's.
func checkPrivateSockets(t *testing.T, n *Node) {
	t.Helper()
	var all []string
	for _, p := range n.nodeProcs() {
		sockets, err := installertest.ListeningSockets(p.pid)
		if err != nil {
			continue // exited meanwhile
		}
		for _, s := range sockets {
			if shared, err := installertest.SharedWithMachine(p.pid, s); err != nil || shared {
				t.Errorf("%s listens on the machine's %s (err %v)", p, s, err)
			}
		}
		all = append(all, sockets...)
	}
	if !slices.ContainsFunc(all, func(s string) bool { return strings.HasSuffix(s, ".ttrpc") }) {
		t.Errorf("no process of the node listens on a ttrpc socket: %v", all)
	}
	t.Logf("the node's processes listen on %v", all)
}
