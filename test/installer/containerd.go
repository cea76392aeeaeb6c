// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installertest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// Containerd is one real containerd release.
type Containerd struct {
	// Version is e.g. "1.7.35".
	Version string
	// Dir holds containerd, ctr and containerd-shim-runc-v2.
	Dir          string
	Major, Minor int
}

func (c Containerd) String() string { return "containerd-" + c.Version }

// Bin is the containerd binary.
func (c Containerd) Bin() string { return filepath.Join(c.Dir, "containerd") }

// Accepts reports whether this release reads the CRI settings of a config file of the given version (verified
// facts: 1.x reads 1 and 2, 1.7 refuses 3+, Debian's 1.6 silently ignores 3; 2.2 reads 2 and 3 but ignores every
// CRI setting of a version-1 file ("Ignoring unknown key in TOML for plugin" io.containerd.grpc.v1.cri), runsc
// included; 2.4 reads 1-4).
func (c Containerd) Accepts(configVersion int64) bool {
	switch {
	case c.Major == 1:
		return configVersion <= 2
	case c.Major == 2 && c.Minor < 4:
		return configVersion == 2 || configVersion == 3
	}
	return configVersion <= 4
}

// PluginID is the CRI runtime plugin ID this release prints in `config dump`.
func (c Containerd) PluginID() string {
	if c.Major == 1 {
		return "io.containerd.grpc.v1.cri"
	}
	return "io.containerd.cri.v1.runtime"
}

// Containerds returns the releases from GVISOR_TEST_CONTAINERD (ParseContainerds); it skips (fails under
// REQUIRE_REAL_COMPONENTS=1) without them and fails the test on a malformed value.
func Containerds(t testing.TB) []Containerd {
	t.Helper()
	out, err := ParseContainerds(realcomponents.Env(t, "GVISOR_TEST_CONTAINERD", "tool-containerd"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ParseContainerds parses GVISOR_TEST_CONTAINERD's "version=dir" entries (hack/tools/containerd.sh prints them)
// into releases sorted by version, each dir checked to hold containerd.
func ParseContainerds(raw string) ([]Containerd, error) {
	var out []Containerd
	for _, entry := range strings.Fields(raw) {
		ver, dir, ok := strings.Cut(entry, "=")
		parts := strings.Split(ver, ".")
		if !ok || len(parts) < 2 {
			return nil, fmt.Errorf("GVISOR_TEST_CONTAINERD entry %q is not version=dir", entry)
		}
		major, err1 := strconv.Atoi(parts[0])
		minor, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("GVISOR_TEST_CONTAINERD entry %q: version is not major.minor.patch", entry)
		}
		if _, err := os.Stat(filepath.Join(dir, "containerd")); err != nil {
			return nil, fmt.Errorf("GVISOR_TEST_CONTAINERD entry %q: %w", entry, err)
		}
		out = append(out, Containerd{Version: ver, Dir: dir, Major: major, Minor: minor})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Major != out[j].Major {
			return out[i].Major < out[j].Major
		}
		return out[i].Minor < out[j].Minor
	})
	if len(out) == 0 {
		return nil, errors.New("GVISOR_TEST_CONTAINERD lists no containerd release: run hack/tools/containerd.sh")
	}
	return out, nil
}

// Release returns the release whose version starts with prefix (e.g. "1.6"), skipping when it is not installed.
func Release(t testing.TB, prefix string) Containerd {
	t.Helper()
	for _, c := range Containerds(t) {
		if strings.HasPrefix(c.Version, prefix+".") || c.Version == prefix {
			return c
		}
	}
	msg := "containerd " + prefix + " is not in GVISOR_TEST_CONTAINERD"
	if os.Getenv("REQUIRE_REAL_COMPONENTS") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return Containerd{}
}

// Dump runs `containerd --config FILE config dump` and returns the effective config decoded, plus stderr.
func (c Containerd) Dump(t testing.TB, configFile string) (map[string]any, string) {
	t.Helper()
	tree, stderr, err := c.DumpErr(t, configFile)
	if err != nil {
		t.Fatalf("%s config dump of %s: %v\n%s", c, configFile, err, stderr)
	}
	return tree, stderr
}

// DumpErr is Dump for configs that containerd may refuse: it returns the error (and stderr saying why).
func (c Containerd) DumpErr(t testing.TB, configFile string) (map[string]any, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(c.Bin(), "--config", configFile, "config", "dump")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, stderr.String(), err
	}
	var tree map[string]any
	if err := toml.Unmarshal(stdout.Bytes(), &tree); err != nil {
		t.Fatalf("%s config dump output does not parse: %v", c, err)
	}
	return tree, stderr.String(), nil
}

// Lookup walks a decoded TOML tree.
func Lookup(tree map[string]any, path ...string) (any, error) {
	var cur any = tree
	for i, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is not a table", strings.Join(path[:i], "."))
		}
		if cur, ok = m[k]; !ok {
			return nil, fmt.Errorf("%s is missing", strings.Join(path[:i+1], "."))
		}
	}
	return cur, nil
}
