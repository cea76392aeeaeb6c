// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package binaries

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestForeign: in a real bin dir, the names containerd or a shim runs from PATH and lookalikes of ours are listed;
// our own files, our temporaries, gvisor-bin/ and unrelated files are not.
func TestForeign(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{
		nodecontract.Runsc, nodecontract.Shim, ".runsc.gvisor-installer-123", "README", "kata-runtime",
		"containerd-shim-runc-v2", "containerd-shim-kata-v2", "runc", "crun", "unpigz", "runsc.bak", "containerd-shim-runsc-v1-debug",
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(bin, nodecontract.SideDir), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Foreign(bin)
	if err != nil {
		t.Fatal(err)
	}
	want := "containerd-shim-kata-v2,containerd-shim-runc-v2,containerd-shim-runsc-v1-debug,crun,runc,runsc.bak,unpigz"
	if strings.Join(got, ",") != want {
		t.Errorf("Foreign = %v, want %s", got, want)
	}
	if got, err := Foreign(filepath.Join(bin, "missing")); err != nil || len(got) != 0 {
		t.Errorf("a missing bin dir: %v, %v; want nothing", got, err)
	}
}

// TestLoadRefusesForeignNames: a release that carries another runtime's shim (listed in SHA512SUMS with the right
// checksum) is refused, so the installer never writes a name other than its own into the bin dir.
func TestLoadRefusesForeignNames(t *testing.T) {
	elf := installertest.GoBinary(t, runtime.GOARCH)
	for _, name := range []string{"containerd-shim-runc-v2", "runc", "gvisor-bin/../runc"} {
		t.Run(name, func(t *testing.T) {
			src := t.TempDir()
			files := map[string][]byte{nodecontract.Runsc: elf, nodecontract.Shim: elf}
			if !strings.Contains(name, "..") {
				files[name] = elf
			}
			installertest.WriteRelease(t, src, files)
			if strings.Contains(name, "..") {
				// A SHA512SUMS line escaping gvisor-bin/ into the bin dir.
				f, err := os.OpenFile(filepath.Join(src, nodecontract.SumsFile), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = f.WriteString(strings.Repeat("ab", 64) + "  " + name + "\n")
				_ = f.Close()
			}
			_, err := Load(src, runtime.GOARCH)
			if !refusal.Is(err) {
				t.Fatalf("release with %s: want a refusal, got %v", name, err)
			}
			t.Log(err)
		})
	}
}
