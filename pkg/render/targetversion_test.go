// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// TestTargetVersion: an operator's overwrite may pin images per shoot Kubernetes version (Gardener's
// targetVersion); InstallationValues.TargetVersion selects among them, and without a match the default applies.
func TestTargetVersion(t *testing.T) {
	ow := filepath.Join(t.TempDir(), "images_overwrite.yaml")
	if err := os.WriteFile(ow, []byte(`images:
- name: runtime-gvisor-installation
  repository: registry.example.com/old-kernels/runtime-gvisor-installation
  tag: v0.1.0
  targetVersion: "< 1.32"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRenderer(t, "v0.1.0-dev", ow)
	for target, want := range map[string]string{
		"1.31.4": "registry.example.com/old-kernels/runtime-gvisor-installation:v0.1.0",
		"1.33.0": pinnedImage(t),
		"":       pinnedImage(t),
	} {
		t.Run("target="+target, func(t *testing.T) {
			m, err := r.Installation(render.InstallationValues{WorkerPool: "a", BinaryPath: "/var/bin/containerruntimes",
				NodeSelector: map[string]string{"worker.gardener.cloud/pool": "a"}, TargetVersion: target})
			if err != nil {
				t.Fatal(err)
			}
			if got := installerContainer(m.Objects()[1].(*appsv1.DaemonSet)).Image; got != want {
				t.Errorf("image = %q, want %q", got, want)
			}
		})
	}
}
