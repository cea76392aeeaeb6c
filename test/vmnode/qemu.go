// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// boot starts QEMU on the node's overlay and waits until the guest's sshd answers; it retries with another ssh
// port when QEMU could not bind the one picked, and starts QEMU once more when the guest wrote nothing to its
// console for silentBootLimit (see there).
func (n *Node) boot(ctx context.Context) error {
	t0 := time.Now()
	for start := 1; ; start++ {
		if err := n.startWithFreePort(ctx); err != nil {
			return err
		}
		if n.incoming != "" {
			if err := n.resumeRestored(ctx); err != nil {
				return err
			}
		}
		err := n.waitSSH(ctx)
		if err == nil {
			break
		}
		if !errors.Is(err, errSilentGuest) || start == silentBootStarts {
			return err
		}
		n.logf("boot %d: %v; QEMU started again", n.boots+1, err)
		if err := n.kill(); err != nil {
			return err
		}
		n.qemu = nil
	}
	n.boots++
	n.restored = n.incoming != ""
	// Booted is systemd's word: every unit of the boot transaction started (running) or some failed (degraded).
	state, _ := n.Run(ctx, "systemctl is-system-running --wait")
	n.bootTime = time.Since(t0)
	if state = strings.TrimSpace(state); state != "running" {
		failed, _ := n.Run(ctx, "systemctl --failed --no-legend --no-pager")
		n.logf("boot %d ended %q; failed units:\n%s", n.boots, state, failed)
	}
	return n.measurePace(ctx)
}

// startWithFreePort starts QEMU, picking another ssh port when QEMU could not bind the one picked.
func (n *Node) startWithFreePort(ctx context.Context) error {
	var err error
	for attempt := 1; attempt <= portAttempts; attempt++ {
		if err = n.startQEMU(ctx); err == nil || !errors.Is(err, errPortTaken) {
			break
		}
	}
	return err
}

var errPortTaken = errors.New("QEMU could not bind a forwarded port")

// qemuArgs is QEMU's command line: software emulation (the package doc says why), the cached kernel and initramfs,
// the overlay as the root disk, user-mode networking with the forwarded ports, the share, the serial console
// appended to a file (every boot of the node in one, so a failure after a reboot shows the shutdown before it too);
// -no-reboot turns the guest's reboot into QEMU's exit, so Reboot can start it again.
//
// The console shows where a boot stands, not the kernel's chatter: the kernel's warnings and worse (loglevel=5),
// the initramfs's steps (no `quiet`) and every unit systemd starts (systemd.show_status), so a boot that stalls
// under a loaded machine's emulation names its last step.
func (n *Node) qemuArgs() []string {
	cmdline := "root=/dev/vda rw console=ttyS0 panic=-1 loglevel=5 systemd.show_status=1"
	if n.cfg.CgroupV1 {
		cmdline += " systemd.unified_cgroup_hierarchy=0"
	}
	netdev := fmt.Sprintf("user,id=n0,hostfwd=tcp:127.0.0.1:%d-:22", n.sshPort)
	for _, p := range n.cfg.Forward {
		netdev += fmt.Sprintf(",hostfwd=tcp:%s:%d-:%d", n.cfg.ForwardAddress, p, p)
	}
	args := []string{"qemu-system-x86_64",
		"-accel", "tcg,thread=multi", "-cpu", "max",
		"-smp", fmt.Sprint(n.cfg.CPUs), "-m", fmt.Sprint(n.cfg.MemoryMiB),
		"-kernel", filepath.Join(n.cfg.Disk, "vmlinuz"), "-initrd", filepath.Join(n.cfg.Disk, "initrd.img"),
		"-append", cmdline,
		"-drive", "file=" + n.overlay + ",if=virtio,format=qcow2",
		"-netdev", netdev, "-device", "virtio-net-pci,netdev=n0",
		// Entropy from the machine: without it the guest's first getrandom() (ssh-keygen's host keys, at the
		// first boot of every overlay) can wait minutes for the kernel's entropy under emulation.
		"-device", "virtio-rng-pci",
		"-display", "none", "-vga", "none", "-monitor", "none",
		"-chardev", "file,id=console,append=on,path=" + n.console, "-serial", "chardev:console",
		"-no-reboot",
		"-qmp", "unix:" + n.qmpSocket() + ",server=on,wait=off",
	}
	if n.qemuStarts < n.policy.paused {
		args = append(args, "-S")
	}
	if n.incoming != "" {
		args = append(args, "-incoming", "exec:cat "+shellQuote(n.incoming))
	}
	return append(args, "-virtfs", "local,path="+n.share+",mount_tag=host,security_model=none,readonly=on")
}

// startQEMU picks a free ssh port and starts QEMU in its own process group, killed with the test process.
func (n *Node) startQEMU(ctx context.Context) error {
	port, err := n.freePort()
	if err != nil {
		return err
	}
	n.sshPort = port
	if err := n.markConsole(); err != nil {
		return err
	}
	args := n.qemuArgs()
	var cmd *exec.Cmd
	if n.cfg.Network != nil {
		// Not ctx: QEMU lives until Stop, not until the boot's context ends.
		cmd = n.cfg.Network.NetCommand(context.Background(), args...)
	} else {
		cmd = exec.Command(args[0], args[1:]...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr := filepath.Join(n.work, "qemu.log")
	f, err := os.OpenFile(stderr, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("starting QEMU: %w", err)
	}
	n.qemu = cmd
	n.qemuStarts++
	n.exited = make(chan error, 1)
	go func() { n.exited <- cmd.Wait(); f.Close() }()
	// QEMU binds its forwarded ports before the guest runs: a taken port ends it within a second.
	select {
	case err := <-n.exited:
		n.exited <- err
		n.qemu = nil
		out, _ := os.ReadFile(stderr)
		if strings.Contains(string(out), "host forwarding") {
			return fmt.Errorf("%w: %s", errPortTaken, out)
		}
		return fmt.Errorf("QEMU exited at start: %v: %s", err, out)
	case <-time.After(2 * time.Second):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// freePort is a port of 127.0.0.1 no one listens on now, in the node's network.
func (n *Node) freePort() (int, error) {
	var l net.Listener
	var err error
	if n.cfg.Network != nil {
		l, err = n.cfg.Network.Listen("tcp", "127.0.0.1:0")
	} else {
		l, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return 0, fmt.Errorf("picking a free port for the VM node's ssh: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// kill ends QEMU's process group and waits for QEMU.
func (n *Node) kill() error {
	_ = syscall.Kill(-n.qemu.Process.Pid, syscall.SIGKILL)
	select {
	case err := <-n.exited:
		n.exited <- err
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("QEMU (pid %d) still runs 30s after SIGKILL", n.qemu.Process.Pid)
	}
}
