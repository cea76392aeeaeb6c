// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

const binDir = "/var/bin/containerruntimes"

// host is a temporary node: a host root with /etc/containerd (and conf.d) and the bin dir, plus a release dir.
type host struct {
	root, source string
	logs         *bytes.Buffer
}

// newHost creates a node with config.toml = config (nil: none) and a stub release (see stubRelease).
// Its root is short (not t.TempDir) because real containerd sockets live under it (108-byte limit).
func newHost(t testing.TB, config []byte) *host {
	t.Helper()
	root, err := os.MkdirTemp("", "hr-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	h := &host{root: root, source: filepath.Join(t.TempDir(), "gvisor"), logs: &bytes.Buffer{}}
	for _, d := range []string{"etc/containerd/conf.d", strings.TrimPrefix(binDir, "/")} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if config != nil {
		h.write(t, "/etc/containerd/config.toml", config)
	}
	stubRelease(t, h.source, "v1")
	return h
}

// stubRelease writes a release of minimal ELF files for the node's architecture; payload distinguishes versions.
func stubRelease(t testing.TB, dir, payload string) {
	t.Helper()
	_ = os.RemoveAll(dir)
	m := nativeMachine()
	installertest.WriteRelease(t, dir, map[string][]byte{
		"runsc":                          installertest.StubELF(m, "runsc "+payload),
		"containerd-shim-runsc-v1":       installertest.StubELF(m, "shim "+payload),
		"gvisor-bin/runsc-metric-server": installertest.StubELF(m, "metric-server "+payload),
	})
}

func nativeMachine() uint16 {
	if runtime.GOARCH == "arm64" {
		return installertest.MachineAArch64
	}
	return installertest.MachineX86_64
}

func (h *host) path(nodePath string) string { return filepath.Join(h.root, nodePath) }

func (h *host) write(t testing.TB, nodePath string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(h.path(nodePath)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.path(nodePath), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (h *host) read(t testing.TB, nodePath string) []byte {
	t.Helper()
	// As the node reads it: runsc.toml is an absolute link into the bin dir (package releases).
	p, err := hostfs.ResolveUnder(h.root, nodePath)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func (h *host) exists(nodePath string) bool {
	_, err := os.Lstat(h.path(nodePath))
	return err == nil
}

// options without restart/verify (plug them in per test).
func (h *host) options() installer.Options {
	return installer.Options{
		HostRoot:       h.root,
		Source:         h.source,
		BinDir:         binDir,
		NodeArch:       runtime.GOARCH,
		VerifyTimeout:  20 * time.Second,
		VerifyInterval: 100 * time.Millisecond,
		Logger:         slog.New(slog.NewTextHandler(h.logs, nil)),
	}
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("containerdconfig/testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// relativeImports turns the node-absolute conf.d import into the equivalent relative one, so a real containerd
// started on <root>/etc/containerd/config.toml reads <root>/etc/containerd/conf.d (containerd and the installer
// both resolve relative imports against the importing file's directory).
func relativeImports(config []byte) []byte {
	config = bytes.ReplaceAll(config, []byte(`"/etc/containerd/conf.d/`), []byte(`"conf.d/`))
	return bytes.ReplaceAll(config, []byte(`'/etc/containerd/conf.d/`), []byte(`'conf.d/`))
}

// planLocked plans as `gvisor-installer plan` does: ResolvePlan, then the plan under the node's shared lock.
func planLocked(ctx context.Context, o installer.Options, uninstall bool) (*installer.Plan, error) {
	action := installer.ActionInstall
	if uninstall {
		action = installer.ActionUninstall
	}
	r, err := installer.ResolvePlan(o, action)
	if err != nil {
		return nil, err
	}
	return r.PlanLocked(ctx)
}

// planInstall is an install's plan without the lock.
func planInstall(o installer.Options) (*installer.Plan, error) {
	r, err := installer.ResolvePlan(o, installer.ActionInstall)
	if err != nil {
		return nil, err
	}
	return r.Plan()
}
