// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gpu_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdispec "tags.cncf.io/container-device-interface/specs-go"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/nodeinstall"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

const (
	// checkEnv turns the check on (`make gpu-check`).
	checkEnv = "GVISOR_GPU_CHECK"
	// tableEnv, if set, is where the check also writes its table (markdown).
	tableEnv = "GVISOR_GPU_CHECK_TABLE"
	// checkImage is the real gvisor-gpu-check, at the installation image's path.
	checkImage = "registry.invalid/gvisor-test/gpu-check:1"
	// workloadTimeout bounds one workload run (PyTorch's import alone takes seconds).
	workloadTimeout = 5 * time.Minute
)

// hostUserland are the machine's directories a workload container gets, read-only, over the pause image: its
// nvidia-smi, the driver's libraries and glibc, and its Python with PyTorch, as the GPU operator's CDI spec mounts the
// driver's files into a GPU container.
var hostUserland = []string{"/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/opt"}

// gpuCDIDevice is what a workload container asks for over CRI, as the kubelet asks for the CDI devices of NVIDIA's
// device plugin (DEVICE_LIST_STRATEGY=cdi-cri, the GPU operator's default with CDI) or of a DRA claim: every GPU.
const gpuCDIDevice = "nvidia.com/gpu=all"

// TestGPUCheck is the check. Steps, each a failure with its reason:
//  1. the installer's pre-flight judges the machine's driver with the shipped runsc's table, and its GPU proof
//     reaches the GPUs from a gVisor sandbox: the report says supported, nvproxy on, N GPUs proven;
//  2. nvidia-smi -L natively and in gVisor lists the same GPUs;
//  3. with PyTorch on the machine, a bf16 matmul and a pinned host-to-device copy, natively and in gVisor.
func TestGPUCheck(t *testing.T) {
	if os.Getenv(checkEnv) == "" {
		t.Skipf("the GPU check runs with %s=1 (make gpu-check, on a machine with an NVIDIA GPU, as root)", checkEnv)
	}
	if _, err := os.Stat(gpu.ControlDevice); err != nil {
		t.Skipf("no NVIDIA GPU on this machine (%v): nothing to check; run make gpu-check on a machine with an NVIDIA driver loaded", err)
	}
	if os.Geteuid() != 0 {
		t.Fatal("the GPU check needs root: it runs containerd and opens the GPU devices")
	}
	ctx := context.Background()
	n := newNode(t)
	res, err := installer.Install(ctx, gpuOptions(t, n))
	if err != nil {
		t.Fatalf("install on the GPU node: %v", err)
	}
	t.Logf("installer: %s", res.Summary())
	if res.GPU == nil || res.GPU.Status != nodecontract.GPUSupported || res.GPU.GPUs == 0 {
		t.Fatalf("the installer's GPU verdict: %+v; want the driver supported and the GPU proof passed", res.GPU)
	}
	devices, err := gpu.Devices("/")
	testutil.Must(t, err)
	table := [][3]string{{"figure", "native (runc)", "gVisor (runsc)"},
		{"driver, GPUs proven by the installer", "", fmt.Sprintf("%s, %d", res.GPU.Driver, res.GPU.GPUs)}}

	testutil.Must(t, writeGPUSpec(n, devices))
	native, nativeTime := workload(t, n, "", "nvidia-smi", "-L")
	inGVisor, gvisorTime := workload(t, n, sandbox.DefaultHandler, "nvidia-smi", "-L")
	if strings.TrimSpace(native) == "" || strings.TrimSpace(native) != strings.TrimSpace(inGVisor) {
		t.Errorf("nvidia-smi -L natively:\n%s\nin gVisor:\n%s\nwant the same GPUs", native, inGVisor)
	}
	table = append(table, [3]string{"`nvidia-smi -L` (container start included)", nativeTime.Round(time.Millisecond).String(), gvisorTime.Round(time.Millisecond).String()})

	if python, why := hostTorch(); python == "" {
		t.Logf("the CUDA workload is nvidia-smi only: %s", why)
	} else {
		nativeOut, _ := workload(t, n, "", python, "-c", torchScript)
		gvisorOut, _ := workload(t, n, sandbox.DefaultHandler, python, "-c", torchScript)
		for _, line := range []string{"bf16 8192^3 matmul, TFLOP/s", "host-to-device copy, 1 GiB pinned, GB/s"} {
			table = append(table, [3]string{line, figure(nativeOut, line), figure(gvisorOut, line)})
		}
	}
	report(t, table)
}

// newNode starts a containerd 2.4 node in namespaces (test/node), which sees the machine's /dev.
func newNode(t *testing.T) *nodetest.Node {
	t.Helper()
	tools := nodetest.NodeTools(t)
	return nodetest.New(t, nodetest.Config{Containerd: installertest.Release(t, "2.4"), Tools: tools, Images: nodetest.BuildImages(t, tools)})
}

// gpuOptions are the installer's options for n (package nodeinstall) with the GPU pre-flight and proof over CRI
// from an image holding the real gvisor-gpu-check. The node's host root lists the machine's NVIDIA devices (links
// to /dev), where the installer looks for them; containerd itself sees the machine's /dev.
func gpuOptions(t *testing.T, n *nodetest.Node) installer.Options {
	t.Helper()
	tarball := filepath.Join(t.TempDir(), "gpu-check.tar")
	testutil.Must(t, nodetest.WriteBinaryImage(tarball, checkImage, installertest.GPUCheck(t), gpu.CheckPath))
	testutil.Must(t, n.ImportImage(context.Background(), tarball, checkImage))
	devices, err := gpu.Devices("/")
	testutil.Must(t, err)
	testutil.Must(t, os.MkdirAll(n.HostPath("/dev"), 0o755))
	for _, d := range devices {
		testutil.Must(t, os.Symlink(d, n.HostPath(d)))
	}
	cri := gpu.CRI{Socket: n.Socket(), Image: checkImage, CgroupParent: n.CgroupParent() + "/gpu-check"}
	o := nodeinstall.New(t, n, nodeinstall.Setup{RunscConfig: nodeinstall.EmptyRunscConfig}).Options
	o.GPU, o.GPUProver = cri, cri
	return o
}

// writeGPUSpec writes the node's CDI spec for the machine's GPUs (devices, from gpu.Devices) in the shape NVIDIA's
// toolkit (`nvidia-ctk cdi generate`, the GPU operator) gives it: device "all" with the device nodes and the
// driver capabilities a GPU container gets, and for every device of the kind the driver's userland bind-mounted
// read-only (here the machine's, hostUserland, where the toolkit lists the driver's files one by one).
func writeGPUSpec(n *nodetest.Node, devices []string) error {
	all := cdispec.ContainerEdits{Env: []string{"NVIDIA_DRIVER_CAPABILITIES=compute,utility"}}
	for _, d := range devices {
		all.DeviceNodes = append(all.DeviceNodes, &cdispec.DeviceNode{Path: d})
	}
	spec := &cdispec.Spec{Version: "0.5.0", Kind: "nvidia.com/gpu", Devices: []cdispec.Device{{Name: "all", ContainerEdits: all}}}
	for _, d := range hostUserland {
		if _, err := os.Stat(d); err == nil {
			spec.ContainerEdits.Mounts = append(spec.ContainerEdits.Mounts, &cdispec.Mount{
				HostPath: d, ContainerPath: d, Options: []string{"ro", "nosuid", "nodev", "rbind"}})
		}
	}
	return n.WriteCDISpec("nvidia", spec)
}

// workload runs cmd in a one-shot container of runtime handler handler ("" runc) over the pause image, with the
// GPUs and the machine's userland from the node's CDI spec (writeGPUSpec), and returns its output and how long the
// run took.
func workload(t *testing.T, n *nodetest.Node, handler string, cmd ...string) (string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), workloadTimeout)
	defer cancel()
	start := time.Now()
	out, err := sandbox.OneShot{
		Socket: n.Socket(), Image: nodetest.PauseImage, Command: cmd, Handler: handler,
		CDIDevices: []string{gpuCDIDevice}, Timeout: workloadTimeout, WritableRoot: true,
		Env:          []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/"},
		CgroupParent: n.CgroupParent() + "/gpu-workload", Purpose: "GPU check workload",
	}.Run(ctx)
	took := time.Since(start)
	name := "runc"
	if handler != "" {
		name = "gVisor"
	}
	if err != nil {
		t.Fatalf("%v in %s: %v", cmd, name, err)
	}
	t.Logf("%v in %s (%s):\n%s", cmd, name, took.Round(time.Millisecond), out)
	return string(out), took
}

// hostTorch is the machine's python3 with a CUDA-enabled PyTorch, when both are in the directories a workload
// container gets (hostUserland); else "" and why not.
func hostTorch() (python, why string) {
	python, err := exec.LookPath("python3")
	if err != nil {
		return "", "no python3 on this machine"
	}
	out, err := exec.Command(python, "-c", "import torch; assert torch.cuda.is_available(); print(torch.__file__)").Output()
	if err != nil {
		return "", "no PyTorch with CUDA for " + python
	}
	for _, p := range []string{python, strings.TrimSpace(string(out))} {
		inside := false
		for _, d := range hostUserland {
			inside = inside || strings.HasPrefix(p, d+"/")
		}
		if !inside {
			return "", fmt.Sprintf("%s is outside the directories the workload containers get (%s)", p, strings.Join(hostUserland, ", "))
		}
	}
	return python, ""
}

// torchScript is the PyTorch workload of gpu-nvproxy.md's table: a bf16 8192³ matmul and a pinned 1 GiB
// host-to-device copy, each timed after a warm-up.
const torchScript = `import time, torch
d = torch.device("cuda")
a = torch.randn(8192, 8192, device=d, dtype=torch.bfloat16); b = torch.randn(8192, 8192, device=d, dtype=torch.bfloat16)
for _ in range(3): a @ b
torch.cuda.synchronize(); n = 20; t0 = time.perf_counter()
for _ in range(n): a @ b
torch.cuda.synchronize(); dt = time.perf_counter() - t0
print("bf16 8192^3 matmul, TFLOP/s: %.1f" % (2 * 8192**3 * n / dt / 1e12))
h = torch.empty(1 << 30, dtype=torch.uint8).pin_memory(); g = torch.empty(1 << 30, dtype=torch.uint8, device=d)
g.copy_(h); torch.cuda.synchronize(); t0 = time.perf_counter()
for _ in range(5): g.copy_(h)
torch.cuda.synchronize(); print("host-to-device copy, 1 GiB pinned, GB/s: %.1f" % (5 * (1 << 30) / (time.perf_counter() - t0) / 1e9))`

// figure is the value the workload printed after label.
func figure(out, label string) string {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, label+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return "not printed"
}

// report logs the table and writes it to $GVISOR_GPU_CHECK_TABLE, if set.
func report(t *testing.T, table [][3]string) {
	t.Helper()
	var b strings.Builder
	for i, row := range table {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", row[0], row[1], row[2])
		if i == 0 {
			b.WriteString("|---|---|---|\n")
		}
	}
	t.Logf("GPU check:\n%s", b.String())
	if path := os.Getenv(tableEnv); path != "" {
		testutil.Must(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
}
