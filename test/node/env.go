// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// Tools are the Debian packages a node needs besides containerd and gVisor (hack/tools/node.sh).
type Tools struct {
	// Busybox is Debian's static busybox (busybox-static), packed into the test container image.
	Busybox string
	// CNIDir holds Debian's CNI plugins (containernetworking-plugins): bridge, host-local, loopback.
	CNIDir string
}

// NodeTools parses GVISOR_TEST_NODE (ParseTools); it skips (fails under REQUIRE_REAL_COMPONENTS=1) without it, and
// fails when an entry is malformed or names a missing file.
func NodeTools(t testing.TB) Tools {
	t.Helper()
	tools, err := ParseTools(realcomponents.Node(t))
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// ParseTools parses GVISOR_TEST_NODE ("busybox=PATH cni=DIR", hack/tools/node.sh prints it) and checks that busybox
// and the bridge, host-local and loopback plugins exist.
func ParseTools(raw string) (Tools, error) {
	var tools Tools
	for _, entry := range strings.Fields(raw) {
		key, val, ok := strings.Cut(entry, "=")
		switch {
		case ok && key == "busybox":
			tools.Busybox = val
		case ok && key == "cni":
			tools.CNIDir = val
		default:
			return tools, fmt.Errorf("GVISOR_TEST_NODE entry %q is not busybox=PATH or cni=DIR: run hack/tools/node.sh", entry)
		}
	}
	if tools.Busybox == "" || tools.CNIDir == "" {
		return tools, fmt.Errorf("GVISOR_TEST_NODE=%q lacks busybox= or cni=: run hack/tools/node.sh", raw)
	}
	for _, p := range []string{tools.Busybox, filepath.Join(tools.CNIDir, "bridge"), filepath.Join(tools.CNIDir, "host-local"), filepath.Join(tools.CNIDir, "loopback")} {
		if _, err := os.Stat(p); err != nil {
			return tools, fmt.Errorf("GVISOR_TEST_NODE: %w (install Debian's busybox-static and containernetworking-plugins: hack/tools/node.sh)", err)
		}
	}
	return tools, nil
}
