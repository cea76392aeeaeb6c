// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"bytes"
	"fmt"
	"os/exec"
	"reflect"

	"github.com/pelletier/go-toml/v2"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// setting is one key the node adjusts in the release's default config: the path in the decoded TOML and the value.
type setting struct {
	path  []string
	value any
}

// nodeSettings are the test machine's adjustments (see the package doc), and only those, at this release's keys: the imported
// pause image as the sandbox image, the node's CNI conf dir and Debian's plugins, and restrict_oom_score_adj
// (this machine lacks CAP_SYS_RESOURCE: without it every sandbox fails, runc too). binDirs reports whether the
// default config lists CNI bin_dirs (2.2+) rather than bin_dir.
func nodeSettings(c installertest.Containerd, binDirs bool, cniConfDir, cniBinDir string) []setting {
	if c.Major == 1 {
		cri := []string{"plugins", "io.containerd.grpc.v1.cri"}
		return []setting{
			{append(cri[:2:2], "sandbox_image"), PauseImage},
			{append(cri[:2:2], "restrict_oom_score_adj"), true},
			{append(cri[:2:2], "cni", "conf_dir"), cniConfDir},
			{append(cri[:2:2], "cni", "bin_dir"), cniBinDir},
		}
	}
	images := []string{"plugins", "io.containerd.cri.v1.images"}
	runtime := []string{"plugins", "io.containerd.cri.v1.runtime"}
	out := []setting{
		{append(images[:2:2], "pinned_images", "sandbox"), PauseImage},
		{append(runtime[:2:2], "restrict_oom_score_adj"), true},
		{append(runtime[:2:2], "cni", "conf_dir"), cniConfDir},
	}
	if binDirs {
		return append(out, setting{append(runtime[:2:2], "cni", "bin_dirs"), []any{cniBinDir}})
	}
	return append(out, setting{append(runtime[:2:2], "cni", "bin_dir"), cniBinDir})
}

// DefaultConfig returns release c's own `containerd config default`, adjusted by nodeSettings. Keys the default
// lacks are an error: the release changed, and the adjustment would silently miss.
func DefaultConfig(c installertest.Containerd, cniConfDir, cniBinDir string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(c.Bin(), "config", "default")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s config default: %w: %s", c, err, stderr.String())
	}
	var tree map[string]any
	if err := toml.Unmarshal(out, &tree); err != nil {
		return nil, fmt.Errorf("%s config default does not parse: %w", c, err)
	}
	_, lookErr := installertest.Lookup(tree, "plugins", "io.containerd.cri.v1.runtime", "cni", "bin_dirs")
	for _, s := range nodeSettings(c, lookErr == nil, cniConfDir, cniBinDir) {
		if err := set(tree, s); err != nil {
			return nil, fmt.Errorf("%s config default: %w", c, err)
		}
	}
	return toml.Marshal(tree)
}

// set replaces the value at s.path, which must exist.
func set(tree map[string]any, s setting) error {
	parent, err := installertest.Lookup(tree, s.path[:len(s.path)-1]...)
	if err != nil {
		return err
	}
	m, ok := parent.(map[string]any)
	if !ok {
		return fmt.Errorf("%v is not a table", s.path[:len(s.path)-1])
	}
	if _, ok := m[s.path[len(s.path)-1]]; !ok {
		return fmt.Errorf("%v is missing", s.path)
	}
	m[s.path[len(s.path)-1]] = s.value
	return nil
}

// checkInEffect decodes `containerd config dump` output and checks that every adjustment is what containerd reads.
func checkInEffect(c installertest.Containerd, dump []byte, cniConfDir, cniBinDir string) error {
	var tree map[string]any
	if err := toml.Unmarshal(dump, &tree); err != nil {
		return fmt.Errorf("%s config dump does not parse: %w", c, err)
	}
	_, lookErr := installertest.Lookup(tree, "plugins", "io.containerd.cri.v1.runtime", "cni", "bin_dirs")
	for _, s := range nodeSettings(c, lookErr == nil, cniConfDir, cniBinDir) {
		got, err := installertest.Lookup(tree, s.path...)
		if err != nil || !reflect.DeepEqual(got, s.value) {
			return fmt.Errorf("%s config dump: %v = %v (%v), want %v: the node's adjustment is not in effect", c, s.path, got, err, s.value)
		}
	}
	return nil
}
