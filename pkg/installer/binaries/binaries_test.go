// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package binaries

import (
	"crypto/sha512"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

func TestParseSums(t *testing.T) {
	sum := strings.Repeat("ab", 64)
	for _, tc := range []struct {
		name, data, wantErr string
	}{
		{name: "text and binary mode", data: sum + "  runsc\n" + sum + " *gvisor-bin/x\r\n\n"},
		{name: "short checksum", data: "abcd  runsc\n", wantErr: "line 1 is not"},
		{name: "not hex", data: strings.Repeat("zz", 64) + "  runsc\n", wantErr: "not hex"},
		{name: "escapes the release", data: sum + "  ../etc/passwd\n", wantErr: "outside the release"},
		{name: "absolute", data: sum + "  /etc/passwd\n", wantErr: "outside the release"},
		{name: "duplicate", data: sum + "  runsc\n" + sum + "  ./runsc\n", wantErr: "a second time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sums, err := parseSums("SHA512SUMS", []byte(tc.data))
			if tc.wantErr == "" {
				if err != nil || len(sums) != 2 || sums["gvisor-bin/x"] != sum {
					t.Fatalf("got %v, %v", sums, err)
				}
				return
			}
			if !refusal.Is(err) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("want refusal %q, got %v", tc.wantErr, err)
			}
		})
	}
}

// TestPlanKeepsSidecarsInStep: an upgrade writes changed files only (sidecars, shim, then runsc), removes
// sidecars the new release no longer has, and a second plan is empty.
func TestPlanKeepsSidecarsInStep(t *testing.T) {
	src, bin := t.TempDir(), filepath.Join(t.TempDir(), "bin")
	m := uint16(installertest.MachineX86_64)
	installertest.WriteRelease(t, src, map[string][]byte{
		"runsc":                    installertest.StubELF(m, "runsc 1"),
		"containerd-shim-runsc-v1": installertest.StubELF(m, "shim 1"),
		"gvisor-bin/old":           installertest.StubELF(m, "old 1"),
		"gvisor-bin/same":          installertest.StubELF(m, "same"),
	})
	apply(t, src, bin, "amd64")
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	installertest.WriteRelease(t, src, map[string][]byte{
		"runsc":                    installertest.StubELF(m, "runsc 2"),
		"containerd-shim-runsc-v1": installertest.StubELF(m, "shim 1"),
		"gvisor-bin/new":           installertest.StubELF(m, "new 2"),
		"gvisor-bin/same":          installertest.StubELF(m, "same"),
	})
	got := apply(t, src, bin, "amd64")
	want := []string{"write gvisor-bin/new", "write runsc", "remove gvisor-bin/old"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("upgrade actions = %v, want %v", got, want)
	}
	if again := apply(t, src, bin, "amd64"); len(again) != 0 {
		t.Errorf("second plan = %v, want nothing", again)
	}
	st, err := os.Stat(filepath.Join(bin, "runsc"))
	if err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("runsc mode: %v %v", st, err)
	}
}

func TestLoadRefusesDynamicELF(t *testing.T) {
	// /bin/sh of this machine is dynamically linked (PT_INTERP): the kind of runsc a cgo build produces.
	sh, err := os.ReadFile("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	src := t.TempDir()
	installertest.WriteRelease(t, src, map[string][]byte{"runsc": sh, "containerd-shim-runsc-v1": sh})
	_, err = Load(src, runtime.GOARCH)
	if !refusal.Is(err) || !strings.Contains(err.Error(), "dynamically linked") {
		t.Fatalf("want a refusal of the dynamic binary, got %v", err)
	}
}

func apply(t *testing.T, src, bin, arch string) []string {
	t.Helper()
	rel, err := Load(src, arch)
	if err != nil {
		t.Fatal(err)
	}
	actions, err := Plan(rel, bin)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range actions {
		rel, _ := filepath.Rel(bin, a.Path)
		verb := "write"
		if a.Source == "" {
			verb = "remove"
		}
		out = append(out, verb+" "+rel)
	}
	if err := Apply(actions, bin); err != nil {
		t.Fatal(err)
	}
	// Applied content matches the verified release.
	for _, f := range rel.Files {
		data, err := os.ReadFile(filepath.Join(bin, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if a := sha512.Sum512(data); hex.EncodeToString(a[:]) != f.Sum {
			t.Errorf("%s differs from the release", f.Name)
		}
	}
	return out
}

// TestLoadChecksEveryFileArchitecture: every file of the release (runsc, the shim, each sidecar) is checked
// against the node's architecture with real cross-compiled Go binaries; the refusal names the file, the
// architecture it is built for, the node's, and the fix.
func TestLoadChecksEveryFileArchitecture(t *testing.T) {
	const node, other = "amd64", "arm64"
	good, bad := installertest.GoBinary(t, node), installertest.GoBinary(t, other)
	for _, wrong := range []string{"", "runsc", "containerd-shim-runsc-v1", "gvisor-bin/runsc-metric-server"} {
		t.Run("wrong="+wrong, func(t *testing.T) {
			files := map[string][]byte{}
			for _, name := range []string{"runsc", "containerd-shim-runsc-v1", "gvisor-bin/runsc-metric-server"} {
				files[name] = good
				if name == wrong {
					files[name] = bad
				}
			}
			src := t.TempDir()
			installertest.WriteRelease(t, src, files)
			_, err := Load(src, node)
			if wrong == "" {
				if err != nil {
					t.Fatalf("a release for the node's architecture is refused: %v", err)
				}
				return
			}
			if !refusal.Is(err) {
				t.Fatalf("want a refusal, got %v", err)
			}
			for _, want := range []string{filepath.Join(src, wrong), "is a linux/arm64 binary", "this node is linux/amd64", "fix: the installation image's linux/amd64 variant"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("refusal %q does not say %q", err, want)
				}
			}
		})
	}
}
