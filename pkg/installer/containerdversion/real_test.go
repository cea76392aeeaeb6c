// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdversion_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdversion"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestRealContainerdVersions reads the version of every real containerd over CRI, as the installer does: each
// parses to its release, and only 1.6 is below the minimum.
func TestRealContainerdVersions(t *testing.T) {
	for _, c := range installertest.Containerds(t) {
		t.Run(c.String(), func(t *testing.T) {
			root, err := os.MkdirTemp("", "cv-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(root) })
			config := filepath.Join(root, "config.toml")
			if err := os.WriteFile(config, []byte("version = 2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			d := installertest.StartDaemon(t, c, config, root)
			name, raw, err := verify.CRI{Socket: d.Socket}.RuntimeVersion(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			v, parsed, err := containerdversion.Check(name, raw)
			t.Logf("CRI Version: %s %q", name, raw)
			if !parsed || v.Major != c.Major || v.Minor != c.Minor {
				t.Errorf("%s %q parsed to %+v (parsed %v), want %d.%d", name, raw, v, parsed, c.Major, c.Minor)
			}
			if refused := err != nil; refused != (c.Major == 1 && c.Minor < 7) {
				t.Errorf("%s: refused %v (%v)", c, refused, err)
			}
		})
	}
}
