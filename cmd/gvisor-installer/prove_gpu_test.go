// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/nodeinstall"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestReproveNamesAChangedDriver is the DaemonSet mode's re-proof (prove, which gvisor-idle runs every interval) on
// a real containerd 2.4 node whose runsc.toml has nvproxy on, as the install leaves a GPU node whose driver passed,
// after the node's driver changed: unloaded (this machine has no /dev/nvidiactl) or upgraded to one the shipped
// runsc does not support (runsc's nvproxy-driver-version stands in for the driver's answer, as gpu-nvproxy.md
// simulated it on an H200). runsc refuses every sandbox; the re-proof's line names the changed driver and the way
// out first, then runsc's own reason. A failure that is not about the driver gets no such diagnosis.
func TestReproveNamesAChangedDriver(t *testing.T) {
	if _, err := os.Stat(gpu.ControlDevice); err == nil {
		t.Skip("this machine has " + gpu.ControlDevice + ": the unloaded driver cannot be had here")
	}
	ctx := context.Background()
	tools := nodetest.NodeTools(t)
	n := nodetest.New(t, nodetest.Config{Containerd: installertest.Release(t, "2.4"), Tools: tools, Images: nodetest.BuildImages(t, tools)})
	o := nodeinstall.New(t, n, nodeinstall.Setup{RunscConfig: nodeinstall.EmptyRunscConfig, WithoutProof: true}).Options
	if _, err := installer.Install(ctx, o); err != nil {
		t.Fatal(err)
	}
	installed, err := hostfs.ResolveUnder(n.HostRoot(), runscconfig.NodePath)
	testutil.Must(t, err)
	original, err := os.ReadFile(installed)
	testutil.Must(t, err)
	reprove := func(t *testing.T, extra string) (int, string) {
		t.Helper()
		testutil.Must(t, os.WriteFile(installed, append(append([]byte{}, original...), extra...), 0o644))
		code, _, errOut := runProveCmd(t, "--host-root="+n.HostRoot(), "--bin-dir="+n.BinDir(),
			"--cgroup-parent="+n.CgroupParent()+"/prove", "--registration-timeout=5s")
		return code, lastLine(errOut)
	}
	diagnosis := "the node's NVIDIA driver changed since the install turned nvproxy on"

	for _, tc := range []struct{ name, flags, runscSays string }{
		{"driver unloaded", "  nvproxy = \"true\"\n", "failed to get Nvidia driver version"},
		{"driver upgraded to an unsupported one", "  nvproxy = \"true\"\n  nvproxy-driver-version = \"535.104.05\"\n", "unsupported Nvidia driver version: 535.104.05"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, line := reprove(t, tc.flags)
			t.Logf("re-proof: %s", line)
			if code != 1 || !strings.HasPrefix(line, diagnosis) || !strings.Contains(line, tc.runscSays) {
				t.Errorf("re-proof with nvproxy on and the %s: exit %d, line %q; want exit 1, the changed driver named first and runsc's %q", tc.name, code, line, tc.runscSays)
			}
		})
	}
	t.Run("another failure", func(t *testing.T) {
		code, line := reprove(t, "  no-such-flag = \"x\"\n")
		if code != 1 || strings.Contains(line, "NVIDIA driver") {
			t.Errorf("re-proof with a flag runsc does not know: exit %d, line %q; want exit 1 without the driver's diagnosis", code, line)
		}
	})
	if code, line := reprove(t, ""); code != 0 {
		t.Errorf("re-proof with the installed runsc.toml: exit %d, %q; want it proven", code, line)
	}
}
