// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"log/slog"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/restart"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

// DefaultBinDir is where Gardener expects container runtime binaries (ContainerRuntime.spec.binaryPath).
const DefaultBinDir = "/var/bin/containerruntimes"

// DefaultGPUDriverWait bounds the wait for a GPU node's driver (Options.GPUDriverWait): the GPU operator's driver
// container loads a precompiled module within a few minutes of the node's start. It is the health check's
// installing threshold (pkg/controller/healthcheck), so a wait never shows as a failed node; a pool whose GPU
// nodes get no driver at all pays it once per installation pod.
const DefaultGPUDriverWait = 5 * time.Minute

// Options configure a run; Resolve checks them once and turns them into the Run that acts. Paths named "node path"
// are as the node sees them; the installer prefixes HostRoot. Zero durations and a nil Logger get defaults.
type Options struct {
	// HostRoot is where the node's / (or the needed parts of it) is mounted.
	HostRoot string
	// Source is the unpacked gVisor release (container path): runsc, containerd-shim-runsc-v1, gvisor-bin/, SHA512SUMS.
	Source string
	// BinDir is the node path the binaries go to.
	BinDir string
	// RunscConfig is the runsc.toml to install (container path); empty installs an empty [runsc_config].
	RunscConfig string
	// ReleaseSums, if set, is the directory (container path) with the controller's SHA512SUMS.<NodeArch>, the checksum
	// anchor of the release outside the installation image (binaries.CheckAnchor); Install refuses a release that
	// does not match it before touching the host. Empty checks only the image's own SHA512SUMS.
	ReleaseSums string
	// NodeArch is the GOARCH of the node; the release's binaries must match it.
	NodeArch string
	// Restarter restarts containerd; nil means never restart (and never verify).
	Restarter restart.Restarter
	// CgroupRoot is where the installer sees the host's cgroup file system (cgroups.Root in the installation pod and
	// on the node): with a Verifier that reads the cgroup driver, Install refuses cgroup v1 with the systemd driver
	// before the host is touched (package cgroups). Empty: not checked.
	CgroupRoot string
	// Verifier checks containerd over CRI after a restart, and reads its version before Install touches the host
	// (package containerdversion); nil skips both.
	Verifier verify.Verifier
	// Prover, if set, starts a real gVisor sandbox once runsc is registered and verified, on every Install (also
	// when nothing changed: a kernel or containerd update can break a node that worked). Install succeeds only when
	// the sandbox starts; otherwise runsc is unregistered again (see withdraw). Needs Restarter and Verifier.
	Prover sandbox.Prover
	// VerifyTimeout bounds how long containerd may take to come back healthy before the config is rolled back.
	VerifyTimeout time.Duration
	// VerifyInterval is the pause between verification attempts.
	VerifyInterval time.Duration
	// Logger gets one line per step.
	Logger *slog.Logger
	// NodeLabel, if set, sets the node's readiness label after a verified install and removes it before an
	// uninstall (--label-node; see NodeLabel).
	NodeLabel *NodeLabel
	// GPU, if set, is the GPU pre-flight (package gpu): on a node with NVIDIA devices Install has it judge the
	// driver and turns runsc's nvproxy on for the node's sandboxes only when the shipped runsc supports it
	// (--nvproxy-preflight-image, --nvproxy-preflight-binary). nil: nvproxy stays off.
	GPU gpu.Preflight
	// GPUDriverWait is how long Install waits, on a node with NVIDIA GPUs on its PCI bus but no driver loaded yet
	// (the GPU operator's driver container comes up minutes after the node), for the driver before it decides
	// nvproxy; zero decides at once. Only with GPU.
	GPUDriverWait time.Duration
	// SysRoot is the node's sysfs as the installer sees it (PCI devices); empty means /sys.
	SysRoot string
	// GPUProver, if set, proves a GPU node whose driver passed the pre-flight once nvproxy is on: a gVisor sandbox
	// with the node's NVIDIA devices must reach the driver (gpu.Prover). A failure is reported, not fatal.
	GPUProver gpu.Prover
	// LockTimeout bounds the wait for another run's lock on the node (lock.go); zero means DefaultLockTimeout.
	LockTimeout time.Duration

	// copyHook, if set, runs when a binary's temporary copy is complete, before its rename (tests freeze a run
	// there; export_test.go).
	copyHook func(tmp string)
}
