// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeinstall

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

const (
	// EmptyRunscConfig is the runsc.toml of a pool without configFlags: the table, no flags.
	EmptyRunscConfig = "[runsc_config]\n"
	// VerifyTimeout bounds containerd's return after a restart in a proven set-up. It is shorter than the
	// installer's default (60 s), so that a node whose containerd does not come back fails its test sooner; a
	// healthy node's containerd is back in seconds.
	VerifyTimeout = 45 * time.Second
	// VerifyInterval is the pause between the verifier's attempts in a proven set-up: a tenth of a second rather
	// than the installer's half, which every install's restart would otherwise wait out.
	VerifyInterval = 100 * time.Millisecond
	// proofCgroup is the installer's proof sandbox's cgroup parent below the node's (nodetest.Node.CgroupParent),
	// where the node's cleanup finds and removes what runsc created for it.
	proofCgroup = "/installer-proof"
)

// Setup is what differs between the tests that install gVisor on a real node. Its zero value is the common case:
// the real gVisor release copied for this test, no runsc.toml of the test's (the installer's own empty
// [runsc_config]), and the installer's own proof on every Install.
type Setup struct {
	// Release is the unpacked release the installer installs (Options.Source); empty: the real gVisor release,
	// copied for this test alone (installertest.RealRelease). Suites that start several nodes share one copy.
	Release string
	// RunscConfig is runsc.toml's content, written to a file of the test's (Options.RunscConfig); empty: none,
	// and the installer installs its own empty [runsc_config].
	RunscConfig string
	// ProofTimeout bounds the installer's proof sandbox (sandbox.CRI's Timeout); zero: sandbox.DefaultTimeout.
	ProofTimeout time.Duration
	// WithoutProof leaves the installer's proof out (Options.Prover nil) and its verification timing at the
	// installer's defaults (installer --prove-sandbox=false): for tests of what comes after an install, which
	// prove the node their own way.
	WithoutProof bool
}

// Fixture is the installer's options for one node and what a test reads back of a run with them.
type Fixture struct {
	// Options are the installer's options for the node; a test may change them between runs (another Source,
	// another runsc.toml, the GPU pre-flight).
	Options installer.Options
	// Restarter is Options.Restarter: it counts the node's containerd restarts by the installer.
	Restarter *nodetest.Restarter
	// Logs is what the installer logged (Options.Logger); the test's cleanup shows it when the test failed.
	Logs *bytes.Buffer
}

// New returns the installer's options for node n as Setup says, on the node's host root and bin dir, with the
// node's restarter and the installer's own CRI verifier on the node's socket. It registers the cleanup that logs
// the installer's log when the test failed; it runs nothing on the node.
func New(t testing.TB, n *nodetest.Node, s Setup) *Fixture {
	t.Helper()
	f := &Fixture{Restarter: n.Restarter(), Logs: &bytes.Buffer{}}
	f.Options = installer.Options{
		HostRoot:    n.HostRoot(),
		Source:      s.release(t),
		BinDir:      n.BinDir(),
		RunscConfig: s.runscConfigFile(t),
		NodeArch:    runtime.GOARCH,
		Restarter:   f.Restarter,
		Verifier:    verify.CRI{Socket: n.Socket()},
		Logger:      slog.New(slog.NewTextHandler(f.Logs, nil)),
	}
	if !s.WithoutProof {
		// The installer's own proof (a host-network runsc sandbox) runs on every Install, under the node's cgroup.
		f.Options.Prover = sandbox.CRI{Socket: n.Socket(), Timeout: s.ProofTimeout, CgroupParent: n.CgroupParent() + proofCgroup}
		f.Options.VerifyTimeout, f.Options.VerifyInterval = VerifyTimeout, VerifyInterval
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("installer log:\n%s", f.Logs)
		}
	})
	return f
}

// release is Setup.Release, or a copy of the real release for this test.
func (s Setup) release(t testing.TB) string {
	t.Helper()
	if s.Release != "" {
		return s.Release
	}
	dir := filepath.Join(t.TempDir(), "gvisor")
	installertest.RealRelease(t, dir)
	return dir
}

// runscConfigFile writes Setup.RunscConfig to a file of the test's and returns its path; "" when there is none.
func (s Setup) runscConfigFile(t testing.TB) string {
	t.Helper()
	if s.RunscConfig == "" {
		return ""
	}
	path := filepath.Join(t.TempDir(), "runsc.toml")
	if err := os.WriteFile(path, []byte(s.RunscConfig), 0o644); err != nil {
		t.Fatalf("writing the test's runsc.toml: %v", err)
	}
	return path
}
