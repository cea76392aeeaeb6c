// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// TestBuiltBinary builds gvisor-render the way `make build` does (CGO_ENABLED=0, -ldflags -X for the version)
// and runs it on the example: a release stamp tags our images with it, the default development build renders
// the pinned release tag, never a -dev one.
func TestBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go not on PATH: %v", err)
	}
	pinned := pinnedTag(t)
	tests := []struct {
		name, ldflags, wantTag string
	}{
		{"make build VERSION=v9.8.7", "-X github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version.Version=v9.8.7", "v9.8.7"},
		{"make build (VERSION file, a -dev version)", "-X github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version.Version=v0.1.0-dev", pinned},
		{"plain go build (unstamped)", "", pinned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "gvisor-render")
			build := exec.Command(goBin, "build", "-trimpath", "-ldflags", "-s -w "+tt.ldflags, "-o", bin, ".")
			build.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			cmd := exec.Command(bin, "-f", example)
			cmd.Env = append(os.Environ(), imagevector.OverrideEnv+"=")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s -f %s: %v", bin, example, err)
			}
			checkImages(t, string(out), tt.wantTag)
		})
	}
}
