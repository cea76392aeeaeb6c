// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// gpuCheckImage is the test's image of the real gvisor-gpu-check, at the installation image's path.
const gpuCheckImage = "registry.invalid/gvisor-test/gpu-check:1"

// TestGPUPreflightInRuncContainer runs the real gvisor-gpu-check the way the DaemonSet installer does, in a one-shot
// runc container over a real containerd's CRI, and reads its verdict back: on this machine (no NVIDIA driver) the
// node's verdict, and a given driver version judged by the shipped runsc's table inside the container. A device
// handed to the container is there and readable; a failing command is an error with its output; the GPU proof's
// probe runs in a gVisor sandbox; nothing of a run stays on the node.
func TestGPUPreflightInRuncContainer(t *testing.T) {
	if _, err := os.Stat(gpu.ControlDevice); err == nil {
		t.Skip("this machine has " + gpu.ControlDevice + ": the no-driver verdict cannot be checked here")
	}
	s := newSuite(t)
	bin := installertest.GPUCheck(t)
	s.releases(t, func(c installertest.Containerd) bool { return c.Major == 2 && c.Minor == 4 }, func(t *testing.T, c installertest.Containerd) {
		ctx := context.Background()
		n := s.newNode(t, c, nodetest.Config{}, "[runsc_config]\n")
		tarball := filepath.Join(t.TempDir(), "gpu-check.tar")
		testutil.Must(t, nodetest.WriteBinaryImage(tarball, gpuCheckImage, bin, gpu.CheckPath))
		testutil.Must(t, n.ImportImage(ctx, tarball, gpuCheckImage))
		run := func(image string, devices []string, command ...string) ([]byte, error) {
			return sandbox.OneShot{Socket: n.Socket(), Image: image, Command: command, Devices: devices,
				CgroupParent: n.CgroupParent() + "/oneshot", Purpose: "test"}.Run(ctx)
		}

		out, err := run(gpuCheckImage, nil, gpu.CheckPath, "preflight")
		v, perr := gpu.Parse(out)
		if err != nil || perr != nil || v.Status != nodecontract.GPUNoDevices || v.GVisor == "" {
			t.Errorf("pre-flight on a node without a driver: %+v (%v, %v), want %s", v, err, perr, nodecontract.GPUNoDevices)
		}
		out, err = run(gpuCheckImage, nil, gpu.CheckPath, "preflight", "--driver-version=570.211.01")
		if v, perr = gpu.Parse(out); err != nil || perr != nil || v.Status != nodecontract.GPUUnknown || v.Nearest != "570.195.03" {
			t.Errorf("pre-flight of 570.211.01 in the container: %+v (%v, %v), want unknown with 570.195.03 to install", v, err, perr)
		}

		if _, err := os.Stat("/dev/net/tun"); err == nil {
			// Not in runc's default devices: there only because it was handed over, and readable (opened read-only);
			// stderr is not stdout.
			out, err = run(nodetest.BusyboxImage, []string{"/dev/net/tun"}, "sh", "-c", "echo to stderr >&2; test -c /dev/net/tun && dd if=/dev/net/tun of=/dev/null bs=1 count=0 && echo readable")
			if err != nil || strings.TrimSpace(string(out)) != "readable" {
				t.Errorf("a device handed to the container: %q, %v; want it there and readable", out, err)
			}
		}
		if _, err := run(gpuCheckImage, nil, gpu.CheckPath, "no-such-command"); err == nil || !strings.Contains(err.Error(), "exited with 2") || !strings.Contains(err.Error(), "usage") {
			t.Errorf("a failing container: %v, want its exit code and output", err)
		}

		// The installer's path on a node whose /dev/nvidiactl is seen under the host root but is not a device
		// containerd can hand over: the pre-flight's container is refused, the install succeeds with nvproxy off,
		// and the report says why.
		testutil.Must(t, os.MkdirAll(n.HostPath("/dev"), 0o755))
		testutil.Must(t, os.WriteFile(n.HostPath(gpu.ControlDevice), nil, 0o644))
		n.o.GPU = gpu.CRI{Socket: n.Socket(), Image: gpuCheckImage, CgroupParent: n.CgroupParent() + "/oneshot"}
		res := n.install(t, 1)
		if res.GPU == nil || res.GPU.Status != nodecontract.GPUUnreadable || res.GPU.NVProxy() || !strings.Contains(res.Report().String(), "nvidiactl") {
			t.Errorf("install with an unusable %s: GPU verdict %+v, report %q; want unreadable, nvproxy off, the device named", gpu.ControlDevice, res.GPU, res.Report())
		}

		// The GPU proof's path with gVisor installed: gvisor-gpu-check probe in a one-shot gVisor sandbox. Without a
		// driver the probe inside the sandbox finds no control device and says so.
		cri := gpu.CRI{Socket: n.Socket(), Image: gpuCheckImage, CgroupParent: n.CgroupParent() + "/oneshot"}
		if _, err := cri.ProveGPU(ctx, nil); err == nil || !strings.Contains(err.Error(), "opening /dev/nvidiactl") || !strings.Contains(err.Error(), "in a gVisor sandbox") {
			t.Errorf("the GPU probe in a gVisor sandbox on a node without a driver: %v, want the probe's own error", err)
		}

		// The OperatingSystemConfig mode's GPU proof: the node's own gvisor-gpu-check (node-agent's imageRef file)
		// mounted into the sandbox's pause image.
		data, err := os.ReadFile(bin)
		testutil.Must(t, err)
		nodeBinary := n.BinDir() + "/gvisor-gpu-check"
		testutil.Must(t, os.WriteFile(n.HostPath(nodeBinary), data, 0o755))
		osc := gpu.CRI{Socket: n.Socket(), Binary: nodeBinary, CgroupParent: n.CgroupParent() + "/oneshot"}
		if _, err := osc.ProveGPU(ctx, nil); err == nil || !strings.Contains(err.Error(), "opening /dev/nvidiactl") {
			t.Errorf("the node's probe in the pause image of a gVisor sandbox: %v, want the probe's own error", err)
		}

		conn, err := verify.Dial(n.Socket())
		testutil.Must(t, err)
		defer conn.Close()
		list, err := runtimeapi.NewRuntimeServiceClient(conn).ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
		testutil.Must(t, err)
		for _, sb := range list.GetItems() {
			if sb.GetMetadata().GetName() == sandbox.OneShotName {
				t.Errorf("a one-shot's sandbox %s is left on the node", sb.GetId())
			}
		}
	})
}

// BenchmarkGPUPreflightOneShot is what the pre-flight costs an install on a GPU node, short of the driver's ioctl:
// the real gvisor-gpu-check in a one-shot runc container over containerd 2.4's CRI (sandbox, container, its end,
// the log read back, both removed), judging a given driver version.
func BenchmarkGPUPreflightOneShot(b *testing.B) {
	s := newSuite(b)
	bin := installertest.GPUCheck(b)
	c := installertest.Release(b, "2.4.2")
	n := s.newNode(b, c, nodetest.Config{}, "[runsc_config]\n")
	ctx := context.Background()
	tarball := filepath.Join(b.TempDir(), "gpu-check.tar")
	testutil.Must(b, nodetest.WriteBinaryImage(tarball, gpuCheckImage, bin, gpu.CheckPath))
	testutil.Must(b, n.ImportImage(ctx, tarball, gpuCheckImage))
	one := sandbox.OneShot{Socket: n.Socket(), Image: gpuCheckImage, Command: []string{gpu.CheckPath, "preflight", "--driver-version=580.159.04"},
		CgroupParent: n.CgroupParent() + "/oneshot", Purpose: "benchmark"}
	for b.Loop() {
		if _, err := one.Run(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
