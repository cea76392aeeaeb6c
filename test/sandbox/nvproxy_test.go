// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestNvproxyPoolRunsOnNodeWithoutGPU is a pool written for the field's extension with `nvproxy: "true"` on a node
// without NVIDIA devices (a CPU node of a mixed pool, a GPU node before its driver loaded). The extension's table
// for it has no nvproxy, and the installer, even when handed the table the field's extension writes, installs none:
// gVisor pods start. The field's node-wide `nvproxy = "true"` in the runsc.toml the shim reads fails every pod there,
// naming /dev/nvidiactl.
func TestNvproxyPoolRunsOnNodeWithoutGPU(t *testing.T) {
	if _, err := os.Stat("/dev/nvidiactl"); err == nil {
		t.Skip("this machine has /dev/nvidiactl: the case is a node without NVIDIA devices")
	}
	pool := map[string]string{"nvproxy": "true"}
	if rendered := string(runscconfig.Table(runscconfig.Flags(pool, runscconfig.Options{}))); strings.Contains(rendered, "nvproxy") {
		t.Fatalf("the extension's runsc.toml for configFlags %v carries nvproxy: %q", pool, rendered)
	}
	s := newSuite(t)
	s.releases(t, func(c installertest.Containerd) bool { return c.Major == 2 && c.Minor == 4 }, func(t *testing.T, c installertest.Containerd) {
		const field = "[runsc_config]\n  nvproxy = \"true\"\n"
		n := s.newNode(t, c, nodetest.Config{}, field)
		n.install(t, 1)
		installed, err := hostfs.ResolveUnder(n.HostPath("/"), runscconfig.NodePath)
		testutil.Must(t, err)
		data, err := os.ReadFile(installed)
		testutil.Must(t, err)
		if strings.Contains(string(data), "nvproxy") {
			t.Errorf("the installer put nvproxy on a node without NVIDIA devices: %s = %q", runscconfig.NodePath, data)
		}
		n.GVisorPod(t, false)

		// What the field's extension leaves on such a node: every sandbox fails.
		testutil.Must(t, os.WriteFile(installed, append(data, "  nvproxy = \"true\"\n"...), 0o644))
		if _, err := n.RunPod(context.Background(), nodetest.PodSpec{Handler: "runsc"}); err == nil || !strings.Contains(err.Error(), "nvidiactl") {
			t.Errorf("a gVisor pod with node-wide nvproxy on a node without NVIDIA devices: %v, want it refused naming /dev/nvidiactl", err)
		}
	})
}
