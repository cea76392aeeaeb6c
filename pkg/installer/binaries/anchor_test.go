// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package binaries

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestCheckAnchor: the controller's SHA512SUMS.<arch> must list every release file with the SHA-512 the file
// really has, and nothing else. Whoever controls the image can rewrite the image's own SHA512SUMS (the release here
// is self-consistent, Load accepts it), but not the controller's: every mismatch is a refusal naming the file.
func TestCheckAnchor(t *testing.T) {
	m := uint16(installertest.MachineX86_64)
	genuine := map[string][]byte{
		nodecontract.Runsc: installertest.StubELF(m, "runsc genuine"), nodecontract.Shim: installertest.StubELF(m, "shim genuine"),
		"gvisor-bin/runsc-metric-server": installertest.StubELF(m, "metric genuine"),
	}
	anchorSrc := t.TempDir()
	installertest.WriteRelease(t, anchorSrc, genuine)
	anchor, err := os.ReadFile(filepath.Join(anchorSrc, nodecontract.SumsFile))
	if err != nil {
		t.Fatal(err)
	}
	anchorDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(anchorDir, nodecontract.AnchorFile("amd64")), anchor, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name    string
		mutate  func(files map[string][]byte)
		arch    string
		wantErr []string
	}{
		{name: "genuine release", mutate: func(map[string][]byte) {}},
		{name: "replaced runsc, image's own SHA512SUMS rewritten", mutate: func(f map[string][]byte) { f[nodecontract.Runsc] = installertest.StubELF(m, "runsc evil") },
			wantErr: []string{"/runsc: SHA-512", "does not match the controller's", nodecontract.AnchorFile("amd64"), "fix: deploy the installation image"}},
		{name: "replaced shim", mutate: func(f map[string][]byte) { f[nodecontract.Shim] = installertest.StubELF(m, "shim evil") },
			wantErr: []string{"/" + nodecontract.Shim + ": SHA-512"}},
		{name: "added sidecar", mutate: func(f map[string][]byte) { f["gvisor-bin/extra"] = installertest.StubELF(m, "extra") },
			wantErr: []string{"gvisor-bin/extra: is not part of the release the controller expects"}},
		{name: "dropped sidecar", mutate: func(f map[string][]byte) { delete(f, "gvisor-bin/runsc-metric-server") },
			wantErr: []string{"gvisor-bin/runsc-metric-server: is missing from the release"}},
		{name: "no sums for the node's architecture", mutate: func(map[string][]byte) {}, arch: "arm64",
			wantErr: []string{nodecontract.AnchorFile("arm64"), "cannot read the controller's release sums for linux/arm64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string][]byte{}
			for k, v := range genuine {
				files[k] = v
			}
			tc.mutate(files)
			src := t.TempDir()
			installertest.WriteRelease(t, src, files)
			rel, err := Load(src, "amd64")
			if err != nil {
				t.Fatalf("the image's own SHA512SUMS is consistent, Load must accept it: %v", err)
			}
			arch := tc.arch
			if arch == "" {
				arch = "amd64"
			}
			err = CheckAnchor(rel, anchorDir, arch)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !refusal.Is(err) {
				t.Fatalf("want a refusal, got %v", err)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q does not say %q", err, w)
				}
			}
		})
	}
}
