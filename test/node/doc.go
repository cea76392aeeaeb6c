// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package nodetest is the real-sandbox test harness: a "node" is a real containerd daemon that starts real pods,
// runc and gVisor (runsc) ones, through its CRI, on this machine, without touching the machine's own
// /etc/containerd, /run/containerd, bin dir or network.
//
// # Namespaces
//
// containerd and the gVisor shim read fixed node paths: the runsc handler's ConfigPath
// /etc/containerd/runsc.toml, the bin dir on containerd's PATH (/var/bin/containerruntimes), /run/containerd
// for sockets and runsc's state, /run/netns for pod networks. The installer, in contrast, writes under a host
// root (--host-root). A node therefore lives in private mount and network namespaces held by one long-lived
// process (the holder: `unshare -m -n --propagation private` running a shell that mounts, brings lo up and
// execs `sleep infinity`). Inside them:
//   - a tmpfs on /run (so /run/netns, /run/containerd/s, runsc's state, /run/nri are the node's own);
//   - bind mounts of the node's temporary host root: <hostRoot>/etc/containerd on /etc/containerd,
//     <hostRoot>/run/containerd on /run/containerd, <hostRoot>/run/cdi on /run/cdi (containerd's /var/run/cdi, where
//     WriteCDISpec puts a CDI spec), <hostRoot><binDir> on the bin dir;
//   - temporary directories on /var/lib/cni (libcni's cache, which containerd cannot move) and /opt/containerd
//     (containerd's opt plugin), which would otherwise be written on the machine.
//
// The test process stays outside: it runs the installer in-process with HostRoot=<hostRoot> and talks CRI over
// <hostRoot>/run/containerd/containerd.sock, the same socket containerd serves inside as
// /run/containerd/containerd.sock. containerd, and every restart of it, is started in the holder's namespaces
// with `nsenter -t <holder> -m -n`, so a restart finds the same mounts and network: shims and sandboxes outlive
// it and are reconnected, as on a real node. Missing mount points (the bin dir) are created on the machine under a
// lease shared with the other harnesses and test processes (package mountpoint) and removed by the last one.
//
// The node's network namespace has only lo and the pod bridge (the bridge CNI plugin with host-local addresses,
// Debian's containernetworking-plugins): nothing a pod, containerd or an accidental image pull sends can leave
// it, and the bridge and the ip_forward sysctl the bridge plugin sets die with the namespace.
//
// # config.toml
//
// The node starts on its release's own `containerd config default`, adjusted only by what real pods need on this
// machine (DefaultConfig): the imported pause image as the sandbox image, the
// node's CNI conf dir and Debian's plugin dir, and restrict_oom_score_adj = true, because this machine lacks
// CAP_SYS_RESOURCE and a pause container at oom_score_adj -998 would fail every sandbox, runc too. `containerd
// config dump` inside the node checks that the adjustments are in effect. Config.ContainerdConfig replaces the file
// afterwards with an operator's or the field's extension's state (AdjustForTestMachine makes the same two adjustments
// in its text).
//
// # The shim wrapper
//
// The gVisor shim's `start` action lowers its own oom_score_adj to -999 and treats the EACCES this machine gives
// as fatal; no runsc.toml option helps, since it happens before the file is read. A script named
// containerd-shim-runsc-v1, first on containerd's PATH and for tests only, runs the real, unmodified shim the
// installer installed, and for the `start` action runs it in a private mount namespace where its
// /proc/PID/uid_map reads "0 0 4294967294": the shim then believes it runs in a user namespace and ignores the
// EACCES, as containerd's own helper does. It prints nothing (containerd reads the shim's stdout). Real nodes run
// containerd as full root and need none of this; the product never ships it.
//
// # Images
//
// No registry is used: BuildImages writes docker-archive tarballs (a static pause program built from
// pause/main.go with CGO_ENABLED=0, and Debian's static busybox with a symlink per applet) that the release's ctr
// imports into the node. Their names are under registry.invalid.
//
// # Cleanup
//
// New registers the cleanup with t.Cleanup, so it runs also when the test fails: all pod sandboxes are stopped and
// removed over CRI, containerd is stopped, every remaining process of the node (found by the node's own /run
// tmpfs in its mount table, by ancestry, or by the node's cgroup; never by a PID or a namespace's inode number,
// which the kernel reuses) is killed, then the holder, whose death ends the
// namespaces with their mounts, bridge and sysctls; the node's cgroups (every pod's cgroup parent lies under
// CgroupParent) are removed depth-first and the temporary directories deleted. Anything that survives fails the
// test. A test binary killed outright (go test's -timeout panic) skips t.Cleanup: containerd and the holder die
// with it (parent-death signal), but shims and sandboxes may survive it.
//
// Nodes are independent; tests may use several in sequence. Every wait is bounded and errors carry the tail of
// containerd's log.
package nodetest
