package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/restart"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

type flags struct {
	hostRoot, source, binDir, runscConfig string
	restart, unit, readyFile, logFormat   string
	nodeArch                              string
	idle, uninstall                       bool
	verifyTimeout                         time.Duration
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
	}
	if cmd == "plan" {
		fs.BoolVar(&f.uninstall, "uninstall", false, "plan an uninstall instead of an install (the release flags are then ignored)")
	}
	if cmd == "install" || cmd == "uninstall" {
		fs.BoolVar(&f.idle, "idle", false, "after a successful "+cmd+", write --ready-file and wait for SIGTERM/SIGINT (DaemonSet mode: pod Ready = node done)")
		fs.StringVar(&f.readyFile, "ready-file", "", "marker file written after a successful "+cmd+"; `gvisor-installer ready` checks it")
	}
	return fs, f
}

func (f *flags) options(stderr io.Writer) (installer.Options, error) {
	var h slog.Handler
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
		NodeArch:      f.nodeArch,
		VerifyTimeout: f.verifyTimeout,
		Logger:        slog.New(h).With("version", version.Version),
	}
	switch f.restart {
	case "systemd":
		o.Restarter = restart.Systemd{Socket: f.hostRoot + restart.SystemBusSocket, Unit: f.unit}
		o.Verifier = verify.CRI{Socket: f.hostRoot + verify.CRISocket}
	case "none":
	default:
		return installer.Options{}, fmt.Errorf("--restart must be systemd or none, got %q", f.restart)
	}
	return o, nil
}

func versionString() string { return "gvisor-installer " + version.Version }
