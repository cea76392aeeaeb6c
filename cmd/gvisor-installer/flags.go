// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/cgroups"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/restart"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

type flags struct {
	hostRoot, source, binDir, runscConfig string
	releaseSums                           string
	restart, unit, readyFile, logFormat   string
	nodeArch                              string
	idleBinary                            string // see idle.go
	idle, uninstall, labelNode            bool
	verifyTimeout                         time.Duration
	// The GPU pre-flight (gpu.go).
	gpuImage, gpuBinary string
	gpuDriverWait       time.Duration
	// The sandbox proof, the node's lock and the termination message (proof.go).
	proveSandbox              optionalBool
	proveTimeout, lockTimeout time.Duration
	terminationMessage        string
}

func newFlagSet(cmd string, stderr io.Writer) (*flag.FlagSet, *flags) {
	f := &flags{}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.hostRoot, "host-root", "/host", "where the node's / (or the needed parts of it) is mounted; every node path is below it")
	fs.StringVar(&f.binDir, "bin-dir", installer.DefaultBinDir, "node path for runsc, containerd-shim-runsc-v1 and gvisor-bin/ (the ContainerRuntime's binaryPath)")
	fs.StringVar(&f.restart, "restart", "systemd", "how to restart containerd after its config changed: systemd (D-Bus at <host-root>"+restart.SystemBusSocket+") or none")
	fs.StringVar(&f.unit, "containerd-unit", "containerd.service", "systemd unit of containerd")
	fs.DurationVar(&f.verifyTimeout, "verify-timeout", 60*time.Second, "how long containerd may take to come back healthy (CRI at <host-root>"+verify.CRISocket+") before the previous config is restored")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format on stderr: text or json")
	if cmd != "uninstall" {
		fs.StringVar(&f.source, "source", "/opt/gvisor", "the gVisor release: runsc, containerd-shim-runsc-v1, optional gvisor-bin/, SHA512SUMS")
		fs.StringVar(&f.runscConfig, "runsc-config", "", "runsc.toml to install as /etc/containerd/runsc.toml ([runsc_config] flags); empty installs no flags")
		fs.StringVar(&f.nodeArch, "node-arch", runtime.GOARCH, "architecture the release's binaries must be built for (the node's)")
		fs.StringVar(&f.releaseSums, "release-sums", "", "directory with the controller's SHA512SUMS.<node-arch> (the pool's runsc ConfigMap): "+
			"every release file must match it, or the installer refuses before touching the host; empty: only the image's own SHA512SUMS is checked")
	}
	f.addProofFlags(cmd, fs)
	f.addGPUFlags(cmd, fs)
	if cmd == "plan" {
		fs.BoolVar(&f.uninstall, "uninstall", false, "plan an uninstall instead of an install (the release flags are then ignored)")
	}
	fs.BoolVar(&f.labelNode, "label-node", false, "scheduling readiness gate (docs/readiness-gate.md): install sets the label "+
		nodelabel.Key+"="+nodelabel.Value+" on this node ($"+nodelabel.NodeNameEnv+") after runsc is verified, uninstall removes it before unregistering runsc; "+
		"uses the pod's service account token")
	if cmd == "install" || cmd == "uninstall" {
		fs.BoolVar(&f.idle, "idle", false, "after a successful "+cmd+", write --ready-file and wait for SIGTERM/SIGINT (DaemonSet mode: pod Ready = node done)")
		fs.StringVar(&f.readyFile, "ready-file", "", "marker file written after a successful "+cmd+"; `gvisor-installer ready` checks it")
		fs.StringVar(&f.idleBinary, "idle-binary", "", "with --idle, the minimal program to exec for the idle phase (about 1.7 MB RSS instead of this one's 15 MB); "+
			"empty: "+idleBinaryName+" next to this executable (/"+idleBinaryName+" in the installation image); missing: idle in-process")
	}
	return fs, f
}

// options parses the flags into the run's options; errors are usage errors (nothing on the host changed yet).
// Whether the options fit together is installer.Resolve's to say, not this function's.
func (f *flags) options(cmd string, stderr io.Writer) (installer.Options, error) {
	var h slog.Handler
	var err error
	switch f.logFormat {
	case "text":
		h = slog.NewTextHandler(stderr, nil)
	case "json":
		h = slog.NewJSONHandler(stderr, nil)
	default:
		return installer.Options{}, fmt.Errorf("--log-format must be text or json, got %q", f.logFormat)
	}
	o := installer.Options{
		HostRoot:      f.hostRoot,
		Source:        f.source,
		BinDir:        f.binDir,
		RunscConfig:   f.runscConfig,
		ReleaseSums:   f.releaseSums,
		NodeArch:      f.nodeArch,
		VerifyTimeout: f.verifyTimeout,
		LockTimeout:   f.lockTimeout,
		Logger:        slog.New(h).With("version", version.Version),
	}
	switch f.restart {
	case "systemd":
		o.Restarter = restart.Systemd{Socket: f.hostRoot + restart.SystemBusSocket, Unit: f.unit}
		o.Verifier = verify.CRI{Socket: f.hostRoot + verify.CRISocket}
		// The installation pod's own /sys/fs/cgroup shows the host's hierarchy (its file system type).
		o.CgroupRoot = cgroups.Root
	case "none":
	default:
		return installer.Options{}, fmt.Errorf("--restart must be systemd or none, got %q", f.restart)
	}
	o.Prover = f.prover(cmd)
	if o.GPU, err = f.gpuPreflight(cmd); err != nil {
		return installer.Options{}, err
	}
	o.GPUProver = gpuProver(o.GPU, o.Prover != nil)
	o.GPUDriverWait = f.gpuDriverWait
	if f.labelNode {
		// The name and the pod's service account are checked (and the client built) by installer.Resolve.
		o.NodeLabel = &installer.NodeLabel{NodeName: os.Getenv(nodelabel.NodeNameEnv), Connect: nodelabel.InClusterClient}
	}
	return o, nil
}

// resolve parses the flags and resolves the run: for plan one that only plans (and plans an uninstall with
// --uninstall). Errors are usage errors.
func (f *flags) resolve(cmd string, stderr io.Writer) (*installer.Run, error) {
	o, err := f.options(cmd, stderr)
	if err != nil {
		return nil, err
	}
	switch {
	case cmd == "plan" && f.uninstall:
		return installer.ResolvePlan(o, installer.ActionUninstall)
	case cmd == "plan":
		return installer.ResolvePlan(o, installer.ActionInstall)
	}
	return installer.Resolve(o, installer.Action(cmd))
}

func versionString() string { return "gvisor-installer " + version.Version }
