// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package vmnode is the VM node harness: a node that boots like Gardener's, under QEMU. Its disk (built by
// hack/tools/vm-node.sh from Debian bookworm's packages, cached outside the clone) has systemd as PID 1, the kernel's
// cgroup v2 with every controller (or cgroup v1, Config.CgroupV1), and containerd as a distribution-style systemd
// unit; Provision gives it a containerd release, crictl and the kubelet of this tree's tool cache, and containerd's
// default configuration with runc's `SystemdCgroup = true`, as Gardener's node agent writes it for the systemd cgroup
// driver Gardener's kubelets run with. JoinCluster adds the kubelet with the systemd cgroup driver; StartNodeAgent
// installs Gardener's gardener-node-agent as Gardener's provisioning does (its unit, configuration and paths from
// Gardener's own component), which then applies its pool's OperatingSystemConfig secret through the node's systemd.
//
// # Why a VM
//
// The machines the tests run on are cgroup v1 hosts without systemd: no namespace trick gives a node with cgroup v2
// controllers or a real systemd restarting containerd. Their KVM is pagetable-based virtualisation that a stock
// kernel hangs under, so QEMU emulates the CPU (TCG): commands run about 40 times slower than on the machine, and
// the tests here are few and coarse.
//
// # One run, one overlay
//
// Every Boot writes a copy-on-write qcow2 overlay over the cached disk in a directory of its own, so the disk stays
// pristine and a run can reboot its node (Node.Reboot: the guest's own `systemctl reboot`; QEMU runs with
// -no-reboot and is started again on the same overlay, so everything written survives as on a real disk). Stop
// kills QEMU (its whole process group; QEMU also dies with the test process, by the parent-death signal) and removes
// the directory: a run leaves no QEMU process, no overlay and no forwarded port behind. One node runs on a machine
// at a time (a machine-wide lock from Boot to Stop): two emulated nodes on 2 cores starve each other's boots.
//
// # Saved boots
//
// Boot does not boot the kernel each time: the first Boot of a configuration (disk, kernel command line, machine
// size, QEMU's version) boots it cold, then saves the booted guest (QEMU's migration stream of the stopped machine and
// the overlay as the boot left it) beside the disk, and every node of that configuration, in this run and later
// ones, starts from it in seconds on an overlay of its own (snapshot.go). A restored guest gets the machine's clock,
// fresh randomness and its share; a reboot boots its kernel, so the boot path is still what the reboot tests prove.
//
// # Reaching the node
//
// QEMU's user-mode network gives the guest 10.0.2.15 and lets it reach the host's loopback as 10.0.2.2; the host
// reaches the guest's sshd only through a forwarded port on 127.0.0.1. Node.Run runs a shell command as root over
// ssh (golang.org/x/crypto/ssh, with the disk's key). Large files travel through a read-only 9p share
// (Config.Share, at /mnt/host in the guest), not through ssh, whose ciphers run 40 times slower in the guest.
//
// Config.Network runs QEMU, and so the guest's view of "the host", inside another network namespace (a kubenode's,
// whose API server the node's kubelet then joins as 10.0.2.2).
package vmnode
