// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestAdjustForTestMachine checks the text edit on every state of the field's extension: the two settings land at the keys
// the state's config version is read at, and every line of the state is still there, unchanged or with only the
// value of one of the two keys replaced.
func TestAdjustForTestMachine(t *testing.T) {
	files, _ := filepath.Glob("../../pkg/installer/containerdconfig/testdata/oldextension/*.toml")
	if len(files) == 0 {
		t.Fatal("no states of the field's extension found")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			state, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got, err := AdjustForTestMachine(state)
			if err != nil {
				t.Fatal(err)
			}
			var tree map[string]any
			if err := toml.Unmarshal(got, &tree); err != nil {
				t.Fatal(err)
			}
			image := []string{"plugins", "io.containerd.cri.v1.images", "pinned_images", "sandbox"}
			oom := []string{"plugins", "io.containerd.cri.v1.runtime", "restrict_oom_score_adj"}
			switch v, _ := tree["version"].(int64); {
			case v == 2:
				image = []string{"plugins", "io.containerd.grpc.v1.cri", "sandbox_image"}
				oom = []string{"plugins", "io.containerd.grpc.v1.cri", "restrict_oom_score_adj"}
			case v < 2:
				image = []string{"plugins", "cri", "sandbox_image"}
				oom = []string{"plugins", "cri", "restrict_oom_score_adj"}
			}
			if v, err := installertest.Lookup(tree, image...); err != nil || v != PauseImage {
				t.Errorf("%v = %v (%v), want %s", image, v, err, PauseImage)
			}
			if v, err := installertest.Lookup(tree, oom...); err != nil || v != true {
				t.Errorf("%v = %v (%v), want true", oom, v, err)
			}
			adjusted := strings.Split(string(got), "\n")
			for _, line := range strings.Split(string(state), "\n") {
				key, _, _ := strings.Cut(strings.TrimSpace(line), "=")
				key = strings.TrimSpace(key)
				if key == "sandbox_image" || key == "sandbox" || key == "restrict_oom_score_adj" {
					continue
				}
				if !slices.Contains(adjusted, line) {
					t.Errorf("line %q of the state is gone", line)
				}
			}
		})
	}
}
