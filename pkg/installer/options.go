package installer

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/restart"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

// DefaultBinDir is where Gardener expects container runtime binaries (ContainerRuntime.spec.binaryPath).
const DefaultBinDir = "/var/bin/containerruntimes"

// Options configure a run. Paths named "node path" are as the node sees them; the installer prefixes HostRoot.
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
	// LockTimeout bounds the wait for another run's lock on the node (lock.go); zero means DefaultLockTimeout.
	LockTimeout time.Duration

	// copyHook, if set, runs when a binary's temporary copy is complete, before its rename (tests freeze a run
	// there; export_test.go).
	copyHook func(tmp string)
}

func (o *Options) validate(needSource bool) error {
	if o.HostRoot == "" || !filepath.IsAbs(o.HostRoot) {
		return fmt.Errorf("--host-root must be an absolute path, got %q", o.HostRoot)
	}
	if o.BinDir == "" {
		o.BinDir = DefaultBinDir
	}
	if !filepath.IsAbs(o.BinDir) {
		return fmt.Errorf("--bin-dir must be an absolute node path, got %q", o.BinDir)
	}
	if needSource && o.Source == "" {
		return fmt.Errorf("--source is required: the directory with the gVisor release (runsc, containerd-shim-runsc-v1, SHA512SUMS)")
	}
	if o.VerifyTimeout <= 0 {
		o.VerifyTimeout = 60 * time.Second
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.VerifyInterval <= 0 {
		o.VerifyInterval = 500 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// host returns the path under HostRoot of a node path.
func (o *Options) host(nodePath string) string { return filepath.Join(o.HostRoot, nodePath) }
