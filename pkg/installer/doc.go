// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package installer puts gVisor on a node and registers runsc with containerd, safely, in both delivery modes: it is
// the program of the installation DaemonSet (cmd/gvisor-installer install and uninstall) and, in the
// OperatingSystemConfig mode, of the units gardener-node-agent runs (prove --activate and deactivate, below).
//
// Options configure a run; Resolve checks them once (every rule, each error naming the flag and the fix) and
// returns the Run, which owns plan, apply and rollback (Install and Uninstall are Resolve and Run.Do). A successful
// run's Result.Report is the one line (pkg/nodecontract's Report) the installer leaves in its pod's status.
//
// Install and Uninstall hold the node's exclusive lock for their whole run (flock on /etc/containerd, lock.go): a
// second run waits (bounded by Options.LockTimeout) and then proceeds, or refuses naming the holder.
//
// Install first reads containerd's version over CRI and refuses a containerd older than this gVisor release
// supports (package containerdversion); when CRI does not answer, the repair proceeds and the version is checked
// once containerd is back. It then refuses a node whose cgroups would not hold gVisor pods (cgroup v1 with the
// systemd driver, package cgroups). Every run then computes a complete plan (verifying the release, against the image's
// SHA512SUMS and, with Options.ReleaseSums, against the controller's sums for the node's architecture, the checksum
// anchor outside the image; the runsc config and the containerd config) and refuses, with the host byte-for-byte
// untouched, when anything is off. It writes only the release's own names into the bin dir and reports (log line,
// Result.Foreign in the summary) other runtime-named files there (binaries.Foreign), never touching them. Then it applies
// the plan with atomic writes, restarts containerd only when containerd's own configuration changed, verifies over
// CRI that runsc is in effect, and restores the previous configuration (restarting again) when containerd does not
// come back healthy within a bounded time. containerd's configuration has other writers (gardener-node-agent rewrites
// config.toml at every OperatingSystemConfig reconcile): a file that no longer holds what the plan read is not
// written; the run undoes its writes and plans again (stale.go), and a rollback leaves a config.toml that another
// writer changed after the run as that writer left it. A second run with the same input changes nothing and
// restarts nothing.
//
// With Options.Prover (--prove-sandbox, on in the chart) Install then starts a real gVisor sandbox through the CRI
// (package sandbox), on every run, also when nothing changed, and succeeds only if it starts; if it does not,
// runsc is unregistered again (withdraw: the rollback above, or the uninstall's change to containerd's
// configuration when runsc was registered before this run) and the install fails, saying why.
//
// With Options.NodeLabel (--label-node, the opt-in scheduling readiness gate) Install labels the node once runsc is
// verified and the sandbox proven, and Uninstall removes the label before it unregisters runsc (see NodeLabel).
//
// With Options.GPU (--nvproxy-preflight-image, the pool's nvproxy decision) Install decides runsc's nvproxy for the node: on a node
// with NVIDIA devices the GPU pre-flight judges the driver (gpucheck.go; on a GPU node still loading its driver
// after a bounded wait, gpudriver.go), nvproxy is on in the node's runsc.toml only for a supported driver, and after
// the install the GPU proof (Options.GPUProver) has a gVisor sandbox reach the GPUs. A GPU problem never fails the
// install; the report names it, and the readiness label stays off such a node.
//
// Activate and Deactivate are the OperatingSystemConfig mode's side (activate.go): gardener-node-agent stages the
// release and owns containerd's configuration; Activate puts the release in the same layout as Install, with the
// same GPU decision, proves it and falls back as Install does, and Deactivate removes the layout.
//
// A successful install always leaves its release record (gvisor/state.json): it is staged before the run writes
// anything else and renamed into place after the proof (record.go).
//
// Subpackages do one job each: containerdconfig (TOML editor), containerdversion (the supported containerd
// versions), cgroups (the supported cgroup hierarchy and driver), binaries (release verification, version and
// copy), releases (the layout of releases side by side under the bin dir and the node's record of them), restart
// (systemd D-Bus), verify (CRI checks), sandbox (the sandbox proof and one-shot containers over CRI), gpu (GPU
// nodes: devices, the pre-flight, the GPU proof), hostfs (atomic writes). What the seed side reads or writes of the
// node (the layout's names, containerd's runsc registration, the report line, the GPU verdict words) is
// pkg/nodecontract's; runsc.toml's content and checks are pkg/runscconfig's; the refusal error is pkg/refusal's.
package installer
