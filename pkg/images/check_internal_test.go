// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package images

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/binaries"
)

// TestChecksRefuse: a binary of another architecture, a cgo build, an unstripped build and a gVisor release
// other than the anchor's are refused, each naming what is wrong.
func TestChecksRefuse(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gvisor-idle")
	}
	dir := t.TempDir()
	idle := filepath.Join(dir, "gvisor-idle")
	cmd := exec.Command("go", "build", "-trimpath", "-o", idle, "../../cmd/gvisor-idle")
	cmd.Env = goEnv(runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	other := map[string]string{"amd64": "arm64", "arm64": "amd64"}[runtime.GOARCH]
	if _, err := checkStatic(idle, other, nil); err == nil || !strings.Contains(err.Error(), "GOARCH") {
		t.Errorf("a %s binary passed as %s: %v", runtime.GOARCH, other, err)
	}
	if _, err := checkStatic(idle, runtime.GOARCH, map[string]string{"CGO_ENABLED": "1"}); err == nil || !strings.Contains(err.Error(), "CGO_ENABLED") {
		t.Errorf("want the setting named: %v", err)
	}
	if err := checkStripped(idle, "v1", false); err == nil || !strings.Contains(err.Error(), "-s -w") {
		t.Errorf("an unstripped binary passed: %v", err)
	}

	rel := &binaries.Release{Dir: dir, Files: []binaries.File{{Name: "runsc", Sum: strings.Repeat("a", 128)}, {Name: "containerd-shim-runsc-v1", Sum: strings.Repeat("b", 128)}}}
	sums := imagevector.ReleaseSums{Version: "v1", Go: "go1.2.3", Architectures: map[string]map[string]string{runtime.GOARCH: {
		"runsc": strings.Repeat("a", 128), "containerd-shim-runsc-v1": strings.Repeat("c", 128), "gvisor-bin/x": strings.Repeat("d", 128),
	}}}
	err := matchSums(rel, sums, runtime.GOARCH)
	if err == nil || !strings.Contains(err.Error(), "containerd-shim-runsc-v1, gvisor-bin/x (missing) differs") || !strings.Contains(err.Error(), "GOTOOLCHAIN=go1.2.3") {
		t.Errorf("matchSums: %v", err)
	}
	sums.Architectures[runtime.GOARCH]["containerd-shim-runsc-v1"] = strings.Repeat("b", 128)
	delete(sums.Architectures[runtime.GOARCH], "gvisor-bin/x")
	if err := matchSums(rel, sums, runtime.GOARCH); err != nil {
		t.Errorf("matching sums refused: %v", err)
	}
	if err := matchSums(rel, sums, other); err == nil {
		t.Errorf("sums without %s accepted", other)
	}
	_ = os.Remove(idle)
}
