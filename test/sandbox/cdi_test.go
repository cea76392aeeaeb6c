// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cdispec "tags.cncf.io/container-device-interface/specs-go"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// The shape of what NVIDIA's toolkit (`nvidia-ctk cdi generate`, the GPU operator) writes for a GPU: the device's
// nodes per device, and for every device of the kind the driver's libraries bind-mounted read-only, the
// environment and a createContainer hook (nvidia-cdi-hook's create-symlinks and update-ldcache edit the container's
// root before it starts). The test's device is /dev/null under a GPU's name: no GPU here.
const (
	cdiKind       = "nvidia.com/gpu"
	cdiDevice     = cdiKind + "=0"
	cdiDeviceNode = "/dev/gvisor-test-gpu0"
	cdiLibrary    = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04"
	cdiEnv        = "NVIDIA_VISIBLE_DEVICES=void"
)

// TestCDIDevicesReachGVisorContainers is the GPU operator's path to a GPU container, short of a GPU, on containerd
// 1.7 (where the toolkit turns CDI on in config.toml before gVisor is installed) and 2.4 (CDI on by default): a
// container of a gVisor pod that asks for a CDI device over CRI, as the kubelet does for a device plugin's CDI
// devices or a DRA claim, gets the spec's device node, mounts and environment, and runsc runs the spec's
// createContainer hook with the container's state, as for a runc container. The installer keeps the
// toolkit's enable_cdi through install and uninstall (config.toml is byte for byte the toolkit's again).
func TestCDIDevicesReachGVisorContainers(t *testing.T) {
	s := newSuite(t)
	s.releases(t, cdiContainerds, func(t *testing.T, c installertest.Containerd) {
		ctx := context.Background()
		n := s.cdiNode(t, c)
		toolkits, err := os.ReadFile(n.HostPath(nodetest.ConfigPath))
		testutil.Must(t, err)
		n.install(t, 1)

		library := filepath.Join(t.TempDir(), "libnvidia-ml.so")
		testutil.Must(t, os.WriteFile(library, []byte("the driver's library\n"), 0o644))
		hooks := t.TempDir()
		testutil.Must(t, n.WriteCDISpec("nvidia", &cdispec.Spec{
			Version: "0.5.0", Kind: cdiKind,
			Devices: []cdispec.Device{{Name: "0", ContainerEdits: cdispec.ContainerEdits{
				DeviceNodes: []*cdispec.DeviceNode{{Path: cdiDeviceNode, HostPath: "/dev/null"}},
			}}},
			ContainerEdits: cdispec.ContainerEdits{
				Env:    []string{cdiEnv},
				Mounts: []*cdispec.Mount{{HostPath: library, ContainerPath: cdiLibrary, Options: []string{"ro", "nosuid", "nodev", "bind"}}},
				// The OCI state arrives on stdin; the hook keeps it where the test reads it ($0 is the directory).
				Hooks: []*cdispec.Hook{{HookName: "createContainer", Path: "/bin/sh", Args: []string{"sh", "-c", `cat > "$0/state-$$.json"`, hooks}}},
			},
		}))

		release, err := os.ReadFile("/proc/sys/kernel/osrelease")
		testutil.Must(t, err)
		host := strings.TrimSpace(string(release))
		const script = `echo "env=$NVIDIA_VISIBLE_DEVICES"; cat ` + cdiLibrary + `; if [ -c ` + cdiDeviceNode + ` ]; then echo device; fi; cat /proc/version`
		for _, handler := range []string{"", sandbox.DefaultHandler} {
			name := map[string]string{"": "runc", sandbox.DefaultHandler: "gVisor"}[handler]
			out, err := sandbox.OneShot{Socket: n.Socket(), Image: nodetest.BusyboxImage, Handler: handler, Command: []string{"sh", "-c", script},
				CDIDevices: []string{cdiDevice}, CgroupParent: n.CgroupParent() + "/cdi", Purpose: "test"}.Run(ctx)
			if err != nil {
				t.Fatalf("a %s container with CDI device %s on %s: %v", name, cdiDevice, c, err)
			}
			got := string(out)
			t.Logf("%s container:\n%s", name, got)
			if !strings.Contains(got, "env=void\n") || !strings.Contains(got, "the driver's library\n") {
				t.Errorf("the %s container on %s: %q, want the CDI spec's environment and mount", name, c, got)
			}
			if hosts := strings.Contains(got, "Linux version "+host+" "); hosts != (handler == "") { // gVisor reports a kernel of its own
				t.Errorf("the %s container on %s runs on the wrong kernel: %q", name, c, got)
			}
			// gVisor makes the node in its own /dev for a device it implements (1:3 is its /dev/null; nvproxy serves
			// NVIDIA's majors).
			if !strings.Contains(got, "device\n") {
				t.Errorf("the %s container on %s has no %s: %q", name, c, cdiDeviceNode, got)
			}
			states, err := filepath.Glob(filepath.Join(hooks, "state-*.json"))
			testutil.Must(t, err)
			if len(states) != 1 {
				t.Fatalf("the CDI spec's createContainer hook ran %d times for the %s container on %s, want once", len(states), name, c)
			}
			var state struct {
				ID     string `json:"id"`
				Bundle string `json:"bundle"`
			}
			data, err := os.ReadFile(states[0])
			testutil.Must(t, err)
			if err := json.Unmarshal(data, &state); err != nil || state.ID == "" || state.Bundle == "" {
				t.Errorf("the hook's OCI state for the %s container on %s: %s (%v), want its ID and bundle", name, c, data, err)
			}
			testutil.Must(t, os.Remove(states[0]))
		}

		if _, err := installer.Uninstall(ctx, n.o); err != nil {
			t.Fatalf("uninstall on %s: %v", c, err)
		}
		if got, err := os.ReadFile(n.HostPath(nodetest.ConfigPath)); err != nil || !bytes.Equal(got, toolkits) {
			t.Errorf("config.toml after uninstall on %s is not the one the toolkit left (%v):\n%s", c, err, got)
		}
	})
}

// cdiContainerds are the containerd releases of the CDI tests: 1.7, where the GPU operator's toolkit turns CDI on,
// and 2.4, where it is on by default.
func cdiContainerds(c installertest.Containerd) bool {
	return (c.Major == 1 && c.Minor == 7) || (c.Major == 2 && c.Minor == 4)
}

// cdiNode is a node of containerd c with CDI on as the toolkit leaves it, gVisor not yet installed.
func (s *suite) cdiNode(t *testing.T, c installertest.Containerd) *node {
	t.Helper()
	n := s.newNode(t, c, nodetest.Config{}, "[runsc_config]\n")
	testutil.Must(t, n.EnableCDI(context.Background()))
	return n
}
