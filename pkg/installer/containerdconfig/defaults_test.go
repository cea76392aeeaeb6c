// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestDefaultConfigsAreCurrent: testdata/configs/default-<major.minor>.toml is exactly what that real containerd's
// `containerd config default` prints, so the editor is tested on the real defaults of every release we support.
// UPDATE_SNAPSHOTS=1 (`make snapshots`) rewrites them from the installed releases.
func TestDefaultConfigsAreCurrent(t *testing.T) {
	for _, c := range installertest.Containerds(t) {
		t.Run(c.String(), func(t *testing.T) {
			out, err := exec.Command(c.Bin(), "config", "default").Output()
			if err != nil {
				t.Fatalf("%s config default: %v", c, err)
			}
			file := filepath.Join("testdata/configs", fmt.Sprintf("default-%d.%d.toml", c.Major, c.Minor))
			if os.Getenv("UPDATE_SNAPSHOTS") == "1" {
				if err := os.WriteFile(file, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with UPDATE_SNAPSHOTS=1 to create it)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("%s differs from `%s config default`: run `make snapshots` and review the diff", file, c)
			}
		})
	}
}
