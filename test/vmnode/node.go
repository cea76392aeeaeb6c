// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Limits of a node under TCG on a loaded 2-core machine; see the package doc for why everything is slow.
const (
	// BootTimeout bounds the wait from QEMU's start to the node's sshd answering: measured 45-80 s, so 6 minutes
	// leaves room for a machine busy with the other test packages.
	BootTimeout = 6 * time.Minute
	// ShutdownTimeout bounds a guest's own `systemctl reboot` until QEMU exits: systemd stops containerd and the
	// kubelet (KillMode=process: the shims and sandboxes are killed last), measured under a minute.
	ShutdownTimeout = 4 * time.Minute
	// silentBootLimit is how long a started QEMU may leave its console empty: a guest's kernel writes its first
	// warnings and the initramfs its "Loading, please wait..." within seconds of emulated time, 30 s on a loaded
	// machine. A guest that wrote nothing by then never ran its kernel (an emulation stall on a starved machine,
	// seen once in CI as a reboot whose sshd never answered): nothing of the node (its units, its files) has run
	// yet, so QEMU is started again on the same overlay rather than waiting out BootTimeout.
	silentBootLimit = 2 * time.Minute
	// silentBootStarts bounds the QEMU starts of one boot: a guest silent twice is an error.
	silentBootStarts = 2
	// portAttempts is how often Boot picks another free port when QEMU could not bind the one it picked (another
	// test package took it between the pick and QEMU's bind).
	portAttempts = 3
)

// Network is where QEMU runs and where the harness reaches its forwarded ports: a kubenode's network namespace
// (kubenode.Node has both methods), so that the guest's 10.0.2.2 is that namespace's loopback.
type Network interface {
	NetCommand(ctx context.Context, argv ...string) *exec.Cmd
	Dial(ctx context.Context, network, addr string) (net.Conn, error)
	Listen(network, addr string) (net.Listener, error)
}

// Config configures a node.
type Config struct {
	// Disk is the folder hack/tools/vm-node.sh built (GVISOR_TEST_VM_NODE): vmlinuz, initrd.img, disk.img,
	// id_ed25519.
	Disk string
	// Files are files of the machine the guest sees read-only at /mnt/host/<name> (binaries, image archives),
	// linked (or copied) into the node's share; AddFile adds more while the node runs.
	Files map[string]string
	// CPUs and MemoryMiB size the guest; zero: 2 CPUs (the machine's) and 4 GiB.
	CPUs, MemoryMiB int
	// CgroupV1 boots the node on cgroup v1 (systemd's legacy hierarchy), as SUSE CHost runs; false: cgroup v2, as
	// Garden Linux runs.
	CgroupV1 bool
	// Forward are guest TCP ports forwarded from the same port of ForwardAddress in Network (the API server dials
	// the kubelet there); the ssh port is always forwarded, from a free port of 127.0.0.1.
	Forward        []int
	ForwardAddress string
	// Network runs QEMU and dials the node; nil: the machine's own network.
	Network Network
	// Log receives one line per step with its duration; nil discards.
	Log io.Writer
}

// Node is a running VM node: see the package doc.
type Node struct {
	cfg     Config
	work    string
	overlay string
	share   string
	console string
	// consoleMark is the console's size when the current QEMU started (the end of its boot marker).
	consoleMark int64
	sshPort     int
	qemu        *exec.Cmd
	exited      chan error
	ssh         *sshClient
	boots       int
	bootTime    time.Duration
	policy      startPolicy
	// incoming is the saved machine state QEMU's next start restores (snapshot.go); empty: QEMU boots the kernel.
	incoming string
	// restored: the running guest was restored from a saved boot, not booted (a reboot boots).
	restored bool
	// pace is the guest's measured slowness against the reference (pace.go).
	pace float64
	// qemuStarts counts QEMU's starts (every boot's, restarts included).
	qemuStarts int
	// unlock releases the machine lock (lockMachine) the node holds while it runs.
	unlock func()
}

// Boot waits until no other VM node runs on the machine (machineLockName says why), starts a node on a fresh
// overlay of cfg.Disk from the saved boot of its configuration (snapshot.go; made by a cold boot where there is
// none) and waits until its sshd answers. On error everything started is stopped.
func Boot(ctx context.Context, cfg Config) (*Node, error) {
	return bootWith(ctx, cfg, startPolicy{silentLimit: silentBootLimit, saved: true})
}

// startPolicy is how Boot starts QEMU: the silent guest's limit, whether it starts from a saved boot, and (for the
// harness's own test) how many starts run with the guest paused (QEMU's -S: a guest that never runs its kernel, as
// a stalled emulation; such starts always boot the kernel).
type startPolicy struct {
	silentLimit time.Duration
	saved       bool
	paused      int
}

func bootWith(ctx context.Context, cfg Config, policy startPolicy) (_ *Node, err error) {
	if err := checkPhase(); err != nil {
		return nil, err
	}
	if cfg.CPUs == 0 {
		cfg.CPUs = 2
	}
	if cfg.MemoryMiB == 0 {
		cfg.MemoryMiB = 4096
	}
	for _, f := range []string{"vmlinuz", "initrd.img", "disk.img", "id_ed25519"} {
		if _, err := os.Stat(filepath.Join(cfg.Disk, f)); err != nil {
			return nil, fmt.Errorf("VM node disk %s: %w (build it with hack/tools/vm-node.sh)", cfg.Disk, err)
		}
	}
	n := &Node{cfg: cfg, policy: policy}
	if n.unlock, err = lockMachine(ctx, n.logf); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, n.Stop())
		}
	}()
	if n.work, err = os.MkdirTemp("", "vmnode-"); err != nil {
		return nil, err
	}
	n.share = filepath.Join(n.work, "share")
	if err := os.Mkdir(n.share, 0o755); err != nil {
		return nil, err
	}
	for name, path := range cfg.Files {
		if err := n.AddFile(name, path); err != nil {
			return nil, err
		}
	}
	n.overlay = filepath.Join(n.work, "overlay.qcow2")
	n.console = filepath.Join(n.work, "console.log")
	t0 := time.Now()
	if policy.saved && policy.paused == 0 {
		err = n.bootSaved(ctx)
	} else if err = n.newOverlay(filepath.Join(cfg.Disk, "disk.img"), "raw"); err == nil {
		err = n.boot(ctx)
	}
	if err != nil {
		return nil, err
	}
	n.logf("booted (%s) in %.1fs", n.cgroupName(), time.Since(t0).Seconds())
	return n, nil
}

func (n *Node) cgroupName() string {
	if n.cfg.CgroupV1 {
		return "cgroup v1"
	}
	return "cgroup v2"
}

func (n *Node) logf(format string, args ...any) {
	if n.cfg.Log != nil {
		fmt.Fprintf(n.cfg.Log, "[vmnode] "+format+"\n", args...)
	}
}

// BootTime is how long the last boot took from QEMU's start to sshd answering.
func (n *Node) BootTime() time.Duration { return n.bootTime }

// Footprint is what a running node holds on the machine: QEMU's process ID, the directory of its overlay and
// share, and the forwarded ssh port. After Stop none of them is left (the harness' own test checks).
func (n *Node) Footprint() (pid int, dir string, sshPort int) {
	if n.qemu != nil && n.qemu.Process != nil {
		pid = n.qemu.Process.Pid
	}
	return pid, n.work, n.sshPort
}

// Boots counts the node's boots (the first included; a restored saved boot counts as one).
func (n *Node) Boots() int { return n.boots }

// Restored tells whether the running guest was restored from a saved boot rather than booted from its kernel.
func (n *Node) Restored() bool { return n.restored }

// Reboot reboots the node the way an operator does (`systemctl reboot` in the guest: systemd stops every unit) and
// waits until it is up again on the same overlay.
func (n *Node) Reboot(ctx context.Context) error {
	t0 := time.Now()
	// The command never returns normally: the connection ends with the guest.
	_, _ = n.Run(ctx, "systemctl reboot")
	n.ssh.close()
	n.ssh = nil
	select {
	case err := <-n.exited:
		n.logf("QEMU exited with the guest's reboot (%v)", err)
	case <-time.After(n.Bound(ShutdownTimeout)):
		return fmt.Errorf("VM node did not shut down within %s of systemctl reboot; console:\n%s", n.Bound(ShutdownTimeout), n.Console(30))
	case <-ctx.Done():
		return ctx.Err()
	}
	n.qemu = nil
	if err := n.boot(ctx); err != nil {
		return fmt.Errorf("after reboot: %w", err)
	}
	n.logf("rebooted in %.1fs (boot %.1fs)", time.Since(t0).Seconds(), n.bootTime.Seconds())
	return nil
}

// Stop kills QEMU and removes the overlay; it reports what it could not clean up.
func (n *Node) Stop() error {
	var errs []error
	if n.ssh != nil {
		n.ssh.close()
		n.ssh = nil
	}
	if n.qemu != nil {
		errs = append(errs, n.kill())
		n.qemu = nil
	}
	if n.work != "" {
		if err := os.RemoveAll(n.work); err != nil {
			errs = append(errs, fmt.Errorf("removing the VM node's overlay: %w", err))
		}
		n.work = ""
	}
	if n.unlock != nil {
		n.unlock()
		n.unlock = nil
	}
	return errors.Join(errs...)
}
