// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installertest

import (
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// WriteRelease writes files (slash-separated names) into dir and a matching SHA512SUMS.
func WriteRelease(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	sums := make(map[string]string, len(files))
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
		sum := sha512.Sum512(data)
		sums[name] = hex.EncodeToString(sum[:])
	}
	if err := os.WriteFile(filepath.Join(dir, "SHA512SUMS"), []byte(imagevector.FormatSHA512SUMS(sums)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// RealRelease replaces dir with the real static runsc and containerd-shim-runsc-v1 (GVISOR_TEST_GVISOR_DIR) as a
// release, with SHA512SUMS as hack/tools/gvisor-release.sh generates it.
func RealRelease(t testing.TB, dir string) { RealReleaseFrom(t, dir, realcomponents.GVisorDir(t)) }

// RealReleaseFrom is RealRelease with the binaries from src (e.g. realcomponents.GVisorRebuildDir).
func RealReleaseFrom(t testing.TB, dir, src string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, name := range []string{"runsc", "containerd-shim-runsc-v1"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatalf("GVISOR_TEST_GVISOR_DIR: %v", err)
		}
		files[name] = data
	}
	WriteRelease(t, dir, files)
}

// ELF machine numbers for StubELF.
const (
	MachineX86_64  = 62
	MachineAArch64 = 183
)

// StubELF returns a minimal static ELF64 executable header for machine followed by payload: enough for the
// installer's release checks, for tests about configs and files rather than about running gVisor.
func StubELF(machine uint16, payload string) []byte {
	h := make([]byte, 64)
	copy(h, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1})
	le := binary.LittleEndian
	le.PutUint16(h[16:], 2) // ET_EXEC
	le.PutUint16(h[18:], machine)
	le.PutUint32(h[20:], 1)
	le.PutUint16(h[52:], 64) // e_ehsize
	le.PutUint16(h[54:], 56) // e_phentsize
	le.PutUint16(h[58:], 64) // e_shentsize
	return append(h, payload...)
}

// BrokenRelease replaces dir with a release whose runsc (BrokenRunsc) passes every checksum but cannot start a
// sandbox, beside the real shim (GVISOR_TEST_GVISOR_DIR), and returns both files' content (for sums an operator
// writes).
func BrokenRelease(t testing.TB, dir string) (runsc, shim []byte) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	shim, err := os.ReadFile(filepath.Join(realcomponents.GVisorDir(t), "containerd-shim-runsc-v1"))
	if err != nil {
		t.Fatalf("GVISOR_TEST_GVISOR_DIR: %v", err)
	}
	runsc = GoProgram(t, runtime.GOARCH, BrokenRunsc)
	WriteRelease(t, dir, map[string][]byte{"runsc": runsc, "containerd-shim-runsc-v1": shim})
	return runsc, shim
}
