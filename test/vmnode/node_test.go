// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/vmnode"
)

// bootProvisioned boots a VM node and provisions containerd 2.4 with the pause and busybox images; Stop runs at
// the test's end, and the console's tail is logged when the test failed.
func bootProvisioned(ctx context.Context, t *testing.T, cfg vmnode.Config) *vmnode.Node {
	t.Helper()
	cfg.Disk = realcomponents.VMNode(t)
	crictl := realcomponents.Crictl(t)
	containerd := installertest.Release(t, "2.4")
	imgs := nodetest.BuildImages(t, nodetest.NodeTools(t))
	cfg.Log = vmnode.TestLog(t)
	n, err := vmnode.Boot(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("VM node console:\n%s", n.Console(40))
		}
		if err := n.Stop(); err != nil {
			t.Error(err)
		}
	})
	if err := n.Provision(ctx, vmnode.Provision{
		Containerd: containerd.Dir, Crictl: crictl,
		Images: []string{imgs.Pause, imgs.Busybox}, SandboxImage: nodetest.PauseImage,
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func run(ctx context.Context, t *testing.T, n *vmnode.Node, script string) string {
	t.Helper()
	out, err := n.Run(ctx, script)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// restoredClockSkew bounds how far a restored guest's clock may be from the machine's: it is set over ssh right
// after the restore, and read over ssh here, each a round trip of a second or two under emulation.
const restoredClockSkew = 30 * time.Second

// TestNodeBootsLikeGardeners: the node the VM tests run on is Gardener's kind of node (systemd as PID 1, cgroup v2
// with the cpu and memory controllers, containerd a systemd unit in its own delegated cgroup with runc's systemd
// cgroup driver), and a reboot keeps what was installed. The node comes from its saved boot (the clock the
// machine's), and its reboot boots the kernel.
func TestNodeBootsLikeGardeners(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	n := bootProvisioned(ctx, t, vmnode.Config{})
	// Boot starts the node from its saved boot (made first where there is none): a guest that knows the machine's
	// time and mounts its share again (Provision read the images from it).
	if !n.Restored() {
		t.Errorf("Boot booted the kernel; want the node restored from its saved boot")
	}
	t.Logf("QEMU's start to sshd: %.1fs (restored)", n.BootTime().Seconds())
	guestClock, err := strconv.ParseInt(run(ctx, t, n, "date +%s"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if skew := time.Since(time.Unix(guestClock, 0)); skew.Abs() > restoredClockSkew {
		t.Errorf("the restored guest's clock is %s off the machine's, want at most %s", skew, restoredClockSkew)
	}
	check := func() {
		t.Helper()
		if got := run(ctx, t, n, "cat /proc/1/comm"); got != "systemd" {
			t.Errorf("PID 1 is %q, want systemd", got)
		}
		if got := run(ctx, t, n, "stat -fc %T /sys/fs/cgroup"); got != "cgroup2fs" {
			t.Errorf("/sys/fs/cgroup is %q, want cgroup2fs", got)
		}
		ctrl := " " + run(ctx, t, n, "cat /sys/fs/cgroup/cgroup.controllers") + " "
		for _, c := range []string{"cpu", "memory", "pids"} {
			if !strings.Contains(ctrl, " "+c+" ") {
				t.Errorf("cgroup v2 controllers %q lack %s", ctrl, c)
			}
		}
		if got := run(ctx, t, n, "systemctl is-active containerd; systemctl show -p ControlGroup --value containerd"); got != "active\n/system.slice/containerd.service" {
			t.Errorf("containerd: %q, want active in /system.slice/containerd.service", got)
		}
		if got := run(ctx, t, n, "crictl info | grep -c '\"SystemdCgroup\": true' || true"); got == "0" {
			t.Errorf("containerd's runc runtime does not run with SystemdCgroup = true:\n%s", run(ctx, t, n, "crictl info"))
		}
	}
	check()
	if err := n.Reboot(ctx); err != nil {
		t.Fatal(err)
	}
	if n.Restored() || n.Boots() != 2 {
		t.Errorf("after the reboot: restored %v, boots %d; want a boot of the kernel, the node's second", n.Restored(), n.Boots())
	}
	t.Logf("reboot, QEMU's start to sshd: %.1fs (the kernel booted)", n.BootTime().Seconds())
	check()
	t.Log(run(ctx, t, n, "systemd-analyze"))
	pid, dir, port := n.Footprint()
	if err := n.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("QEMU (pid %d) still runs after Stop", pid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the node's overlay directory %s is left after Stop (%v)", dir, err)
	}
	if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
		t.Errorf("the node's ssh port %d is still taken after Stop: %v", port, err)
	} else {
		l.Close()
	}
}
