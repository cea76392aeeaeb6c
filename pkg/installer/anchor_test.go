// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestReleaseAnchor: with the controller's sums (imagevector/gvisor-sums.yaml, as the runsc
// ConfigMap carries them) the real gVisor build installs; a release whose runsc was replaced (and the image's own
// SHA512SUMS rewritten to match, as whoever controls the image can) is refused naming the file, with the node
// untouched: nothing in the bin dir, config.toml byte-for-byte the same, no runsc.toml.
func TestReleaseAnchor(t *testing.T) {
	sums, err := imagevector.EmbeddedReleaseSums()
	if err != nil {
		t.Fatal(err)
	}
	text, ok := sums.SHA512SUMS(runtime.GOARCH)
	if !ok {
		t.Fatalf("%s has no sums for %s", imagevector.SumsFile, runtime.GOARCH)
	}
	anchorDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(anchorDir, nodecontract.AnchorFile(runtime.GOARCH)), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	config := readTestdata(t, "configs/default-2.4.toml")

	t.Run("genuine", func(t *testing.T) {
		h := newHost(t, config)
		installertest.RealRelease(t, h.source)
		o := h.options()
		o.ReleaseSums = anchorDir
		if _, err := installer.Install(context.Background(), o); err != nil {
			t.Fatalf("the real build is refused against %s: %v", imagevector.SumsFile, err)
		}
		if !strings.Contains(h.logs.String(), "release matches the controller's sums") {
			t.Errorf("no log line for the anchor check:\n%s", h.logs)
		}
	})
	t.Run("replaced runsc", func(t *testing.T) {
		h := newHost(t, config)
		installertest.RealRelease(t, h.source)
		shim, err := os.ReadFile(filepath.Join(h.source, "containerd-shim-runsc-v1"))
		if err != nil {
			t.Fatal(err)
		}
		// A real static binary of the right architecture (the shim), under runsc's name, with a consistent SHA512SUMS.
		installertest.WriteRelease(t, h.source, map[string][]byte{"runsc": shim, "containerd-shim-runsc-v1": shim})
		o := h.options()
		o.ReleaseSums = anchorDir
		_, err = installer.Install(context.Background(), o)
		if !refusal.Is(err) || !strings.Contains(err.Error(), filepath.Join(h.source, "runsc")+": SHA-512") {
			t.Fatalf("want a refusal naming runsc, got %v", err)
		}
		entries, _ := os.ReadDir(h.path(binDir))
		if len(entries) != 0 || string(h.read(t, "/etc/containerd/config.toml")) != string(config) || h.exists("/etc/containerd/runsc.toml") {
			t.Errorf("a refused release touched the node: bin dir %v", entries)
		}
	})
}
