// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestRefusalsLeaveHostUntouched: every reason to refuse is detected before the first write; the whole host root
// hashes the same before and after, and the message names the file and the fix.
func TestRefusalsLeaveHostUntouched(t *testing.T) {
	gardenerV2 := readTestdata(t, "configs/gardener-v2.toml")
	cases := []struct {
		name    string
		config  []byte
		prepare func(t *testing.T, h *host)
		// want are substrings of the refusal (file, reason).
		want []string
	}{
		{name: "malformed config", config: readTestdata(t, "refused/malformed.toml"), want: []string{"/etc/containerd/config.toml", "not valid TOML"}},
		{name: "unknown version", config: readTestdata(t, "refused/unknown-version.toml"), want: []string{"/etc/containerd/config.toml", "version 7"}},
		{name: "CRI disabled", config: readTestdata(t, "refused/cri-disabled.toml"), want: []string{"/etc/containerd/config.toml", "CRI plugin is disabled"}},
		{name: "no config", want: []string{"/etc/containerd/config.toml", "does not exist"}},
		{name: "config is a symlink", prepare: func(t *testing.T, h *host) {
			h.write(t, "/etc/containerd/real-config.toml", gardenerV2)
			if err := os.Symlink("real-config.toml", h.path("/etc/containerd/config.toml")); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"/etc/containerd/config.toml", "symbolic link"}},
		{name: "1.x import replaces the CRI table", config: gardenerV2, prepare: func(t *testing.T, h *host) {
			h.write(t, "/etc/containerd/conf.d/mirror.toml", []byte("version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".registry]\n  config_path = \"/etc/containerd/certs.d\"\n"))
		}, want: []string{"/etc/containerd/conf.d/mirror.toml", "containerd#5837"}},
		{name: "malformed import", config: gardenerV2, prepare: func(t *testing.T, h *host) {
			h.write(t, "/etc/containerd/conf.d/broken.toml", []byte("[plugins\n"))
		}, want: []string{"/etc/containerd/conf.d/broken.toml", "not valid TOML"}},
		{name: "checksum mismatch", config: gardenerV2, prepare: func(t *testing.T, h *host) {
			appendFile(t, filepath.Join(h.source, "runsc"), "tampered")
		}, want: []string{"runsc", "checksum does not match"}},
		{name: "file missing from SHA512SUMS", config: gardenerV2, prepare: func(t *testing.T, h *host) {
			writeFile(t, filepath.Join(h.source, "gvisor-bin/extra"), installertest.StubELF(nativeMachine(), "x"))
		}, want: []string{"gvisor-bin/extra", "not listed in SHA512SUMS"}},
		{name: "listed file missing", config: gardenerV2, prepare: func(_ *testing.T, h *host) {
			_ = os.Remove(filepath.Join(h.source, "containerd-shim-runsc-v1"))
		}, want: []string{"containerd-shim-runsc-v1", "listed in SHA512SUMS but missing"}},
		{name: "no SHA512SUMS", config: gardenerV2, prepare: func(_ *testing.T, h *host) {
			_ = os.Remove(filepath.Join(h.source, "SHA512SUMS"))
		}, want: []string{"SHA512SUMS", "cannot read the checksum list"}},
		{name: "wrong architecture", config: gardenerV2, prepare: func(t *testing.T, h *host) {
			installertest.WriteRelease(t, h.source, map[string][]byte{
				"runsc":                    installertest.StubELF(otherMachine(), "runsc"),
				"containerd-shim-runsc-v1": installertest.StubELF(otherMachine(), "shim"),
			})
		}, want: []string{"runsc", "binary (ELF", "but this node is linux/"}},
		{name: "not an ELF", config: gardenerV2, prepare: func(t *testing.T, h *host) {
			installertest.WriteRelease(t, h.source, map[string][]byte{"runsc": []byte("#!/bin/sh\n"), "containerd-shim-runsc-v1": []byte("x")})
		}, want: []string{"not an ELF"}},
		{name: "runsc config not TOML", config: gardenerV2, prepare: func(t *testing.T, h *host) {
			writeFile(t, filepath.Join(h.source, "..", "runsc.toml"), []byte("[runsc_config\n"))
		}, want: []string{"runsc.toml", "not valid TOML"}},
		{name: "runsc config value not a string", config: gardenerV2, prepare: func(t *testing.T, h *host) {
			writeFile(t, filepath.Join(h.source, "..", "runsc.toml"), []byte("[runsc_config]\n  debug = true\n"))
		}, want: []string{"runsc.toml", "runsc_config.debug is bool"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, tc.config)
			// A node that already runs an older gVisor: refusals must not touch it either.
			h.write(t, "/var/bin/containerruntimes/runsc", []byte("old runsc"))
			if tc.prepare != nil {
				tc.prepare(t, h)
			}
			o := h.options()
			if _, err := os.Stat(filepath.Join(h.source, "..", "runsc.toml")); err == nil {
				o.RunscConfig = filepath.Join(h.source, "..", "runsc.toml")
			}
			before := installertest.HashTree(t, h.root)
			for _, run := range []func() error{
				func() error { _, err := planInstall(o); return err },
				func() error { _, err := installer.Install(context.Background(), o); return err },
			} {
				err := run()
				if !refusal.Is(err) {
					t.Fatalf("want a refusal, got %v", err)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("refusal %q does not mention %q", err, w)
					}
				}
				if !strings.Contains(err.Error(), "fix:") {
					t.Errorf("refusal %q names no fix", err)
				}
			}
			if after := installertest.HashTree(t, h.root); !reflect.DeepEqual(before, after) {
				t.Errorf("host root changed by a refused install:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func otherMachine() uint16 {
	if installertest.MachineX86_64 == nativeMachine() {
		return installertest.MachineAArch64
	}
	return installertest.MachineX86_64
}

func appendFile(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
