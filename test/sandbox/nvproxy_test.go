// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// TestNvproxyPoolRunsOnNodeWithoutGPU is a pool written for the field's extension with `nvproxy: "true"` on a node
// without NVIDIA devices (a CPU node of a mixed pool, a GPU node before its driver loaded). The runsc.toml the field
// writes for it fails every sandbox there (the installer's proof names /dev/nvidiactl); the one the extension
// renders for the same configFlags starts gVisor pods, because runsc turns nvproxy on per pod from its devices.
func TestNvproxyPoolRunsOnNodeWithoutGPU(t *testing.T) {
	if _, err := os.Stat("/dev/nvidiactl"); err == nil {
		t.Skip("this machine has /dev/nvidiactl: the case is a node without NVIDIA devices")
	}
	pool := map[string]string{"nvproxy": "true"}
	s := newSuite(t)
	s.releases(t, func(c installertest.Containerd) bool { return c.Major == 2 && c.Minor == 4 }, func(t *testing.T, c installertest.Containerd) {
		const field = "[runsc_config]\n  nvproxy = \"true\"\n"
		n := s.newNode(t, c, nodetest.Config{}, field)
		_, err := installer.Install(context.Background(), n.o)
		if err == nil || !strings.Contains(err.Error(), "nvidiactl") {
			t.Fatalf("install with the field's runsc.toml (%q) on a node without NVIDIA devices: %v, want the proof to fail on /dev/nvidiactl", field, err)
		}

		rendered := string(runscconfig.Table(runscconfig.Flags(pool, runscconfig.Options{})))
		if strings.Contains(rendered, "nvproxy") {
			t.Fatalf("the extension's runsc.toml for configFlags %v carries nvproxy: %q", pool, rendered)
		}
		n.o.RunscConfig = writeTemp(t, "runsc-rendered.toml", rendered)
		if _, err := installer.Install(context.Background(), n.o); err != nil {
			t.Fatalf("install with the extension's runsc.toml for configFlags %v: %v", pool, err)
		}
		n.GVisorPod(t, false)
	})
}
