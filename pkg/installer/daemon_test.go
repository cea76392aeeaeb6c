// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// daemonScenarios pair each supported real containerd with a config it runs on in the field (containerd 1.6 is
// refused: TestInstallRefusesContainerd16).
var daemonScenarios = []struct {
	release, config string
}{
	{"1.7", "configs/debian-1.6-packaged.toml"}, // lists no runc: the 1.x trap, on a real daemon
	{"1.7", "configs/gardener-v2.toml"},
	{"2.2", "configs/default-2.2.toml"}, // imports conf.d: drop-in
	{"2.4", "configs/default-2.4.toml"}, // imports conf.d: drop-in
}

// TestDaemonLifecycle runs the installer against real containerd daemons, restarted by the test restarter and
// verified by the installer's own CRI verifier: first install restarts once and runsc is in effect; a re-run, a
// runsc flag change and a binary upgrade restart nothing; uninstall restarts once, runsc is gone and config.toml
// is byte for byte the original.
func TestDaemonLifecycle(t *testing.T) {
	for _, sc := range daemonScenarios {
		t.Run(sc.release+"/"+filepath.Base(sc.config), func(t *testing.T) {
			c := installertest.Release(t, sc.release)
			original := relativeImports(readTestdata(t, sc.config))
			h := newHost(t, original)
			d := installertest.StartDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
			cri := verify.CRI{Socket: d.Socket}
			if err := cri.Verify(context.Background(), verify.NoRunsc); err != nil {
				t.Fatalf("before install: %v", err)
			}
			r := &installertest.Restarter{D: d}
			o := h.options()
			o.Restarter, o.Verifier = r, cri

			step := func(name string, run func(context.Context, installer.Options) (installer.Result, error), wantRestarts int, unchanged bool) {
				t.Helper()
				before := r.Restarts
				res, err := run(context.Background(), o)
				if err != nil {
					t.Fatalf("%s: %v\n%s", name, err, h.logs)
				}
				if got := r.Restarts - before; got != wantRestarts || res.Restarts != wantRestarts {
					t.Errorf("%s: %d containerd restarts (result says %d), want %d: %s", name, got, res.Restarts, wantRestarts, res.Summary())
				}
				if unchanged != strings.Contains(res.Summary(), "unchanged") {
					t.Errorf("%s: summary %q", name, res.Summary())
				}
				t.Logf("%s: %s", name, res.Summary())
			}

			step("first install", installer.Install, 1, false)
			if err := cri.Verify(context.Background(), verify.Runsc); err != nil {
				t.Fatalf("after install: %v", err)
			}
			step("re-run", installer.Install, 0, true)

			flags := filepath.Join(t.TempDir(), "runsc.toml")
			writeFile(t, flags, []byte("[runsc_config]\n  debug = \"true\"\n  net-raw = \"true\"\n"))
			o.RunscConfig = flags
			step("flag change", installer.Install, 0, false)
			if got := h.read(t, runscconfig.NodePath); !bytes.HasSuffix(got, []byte("[runsc_config]\n  debug = \"true\"\n  net-raw = \"true\"\n")) {
				t.Errorf("runsc.toml = %q", got)
			}

			stubRelease(t, h.source, "v2")
			step("binary upgrade", installer.Install, 0, false)
			if got := h.read(t, binDir+"/runsc"); !bytes.HasSuffix(got, []byte("runsc v2")) {
				t.Errorf("runsc not upgraded")
			}

			step("uninstall", installer.Uninstall, 1, false)
			if err := cri.Verify(context.Background(), verify.NoRunsc); err != nil {
				t.Errorf("after uninstall: %v", err)
			}
			if got := h.read(t, nodecontract.ContainerdConfigPath); !bytes.Equal(got, original) {
				t.Errorf("config.toml after uninstall differs from the original:\n%s", got)
			}
			for _, p := range []string{nodecontract.DropInPath, runscconfig.NodePath, installer.BackupPath, binDir + "/runsc", binDir + "/containerd-shim-runsc-v1", binDir + "/gvisor-bin"} {
				if h.exists(p) {
					t.Errorf("%s left behind by uninstall", p)
				}
			}
			step("uninstall again", installer.Uninstall, 0, true)
		})
	}
}

// TestConfigWrittenButNotInEffect: a previous run wrote the config and died before restarting containerd
// (simulated by --restart=none); the next run changes no file but sees over CRI that runsc is not in effect, and
// restarts once.
func TestConfigWrittenButNotInEffect(t *testing.T) {
	c := installertest.Release(t, "2.4")
	h := newHost(t, relativeImports(readTestdata(t, "configs/default-2.4.toml")))
	d := installertest.StartDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	if _, err := installer.Install(context.Background(), h.options()); err != nil {
		t.Fatal(err)
	}
	r := &installertest.Restarter{D: d}
	o := h.options()
	o.Restarter, o.Verifier = r, verify.CRI{Socket: d.Socket}
	res, err := installer.Install(context.Background(), o)
	if err != nil || len(res.Changed) != 0 || r.Restarts != 1 {
		t.Fatalf("want no file change and one restart, got %s (%d restarts), %v", res.Summary(), r.Restarts, err)
	}
	if err := o.Verifier.Verify(context.Background(), verify.Runsc); err != nil {
		t.Fatal(err)
	}
}

// TestRollbackWhenRunscNotInEffect: containerd 2.2 ignores every CRI setting of a version-1 config (no version
// key), so after the restart it is up but without the runsc the installer registered under plugins.cri. The
// installer must notice over CRI, restore the previous config, restart again and fail. (Debian's 1.6, which
// silently ignores a version-3 file, showed the same before 1.6 was refused.)
func TestRollbackWhenRunscNotInEffect(t *testing.T) {
	c := installertest.Release(t, "2.2")
	original := readTestdata(t, "configs/v1.toml")
	h := newHost(t, original)
	d := installertest.StartDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	r := &installertest.Restarter{D: d}
	o := h.options()
	o.Restarter, o.Verifier, o.VerifyTimeout = r, verify.CRI{Socket: d.Socket}, 6*time.Second

	start := time.Now()
	res, err := installer.Install(context.Background(), o)
	if err == nil || refusal.Is(err) {
		t.Fatalf("want a failure, got %v (%s)", err, res.Summary())
	}
	if !strings.Contains(err.Error(), "no runtime \"runsc\"") || !strings.Contains(err.Error(), "previous one is restored") {
		t.Errorf("error does not explain the rollback: %v", err)
	}
	if !res.RolledBack || res.Restarts != 2 || r.Restarts != 2 {
		t.Errorf("want a rollback with 2 restarts, got %s (%d)", res.Summary(), r.Restarts)
	}
	if elapsed := time.Since(start); elapsed > 3*o.VerifyTimeout {
		t.Errorf("rollback took %s, bound is about %s", elapsed, 2*o.VerifyTimeout)
	}
	if got := h.read(t, nodecontract.ContainerdConfigPath); !bytes.Equal(got, original) {
		t.Errorf("config.toml not restored:\n%s", got)
	}
	if err := o.Verifier.Verify(context.Background(), verify.Up); err != nil {
		t.Errorf("containerd not up after the rollback: %v", err)
	}
}

// TestRollbackWhenContainerdFailsToStart: containerd 2.4 does not start with the new configuration (here the
// drop-in is damaged between our write and the restart: on a node, any cause that makes containerd exit). The
// installer removes its drop-in again, restarts containerd on the previous configuration and fails.
func TestRollbackWhenContainerdFailsToStart(t *testing.T) {
	c := installertest.Release(t, "2.4")
	original := relativeImports(readTestdata(t, "configs/default-2.4.toml"))
	h := newHost(t, original)
	d := installertest.StartDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	r := &installertest.Restarter{D: d, Before: func(n int) {
		if n == 1 {
			appendFile(t, h.path(nodecontract.DropInPath), "\n[plugins.'io.containerd.cri.v1.runtime'\n")
		}
	}}
	o := h.options()
	o.Restarter, o.Verifier, o.VerifyTimeout = r, verify.CRI{Socket: d.Socket}, 5*time.Second

	res, err := installer.Install(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "previous one is restored") {
		t.Fatalf("want a rolled-back failure, got %v (%s)", err, res.Summary())
	}
	if !strings.Contains(d.LogTail(200), "failed to load") && !strings.Contains(err.Error(), "exited") {
		t.Errorf("containerd did not fail on the damaged config as the test intends:\n%s", d.LogTail(20))
	}
	if h.exists(nodecontract.DropInPath) || !bytes.Equal(h.read(t, nodecontract.ContainerdConfigPath), original) {
		t.Errorf("previous configuration not restored")
	}
	if r.Restarts != 2 || res.Restarts != 1 || !res.RolledBack {
		t.Errorf("want 2 restart attempts (the first failing), 1 successful restart and a rollback, got %d, %s", r.Restarts, res.Summary())
	}
	if err := o.Verifier.Verify(context.Background(), verify.NoRunsc); err != nil {
		t.Errorf("containerd not back on the previous config: %v", err)
	}
	_ = os.Remove(h.path(installer.BackupPath))
}
