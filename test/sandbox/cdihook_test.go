// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
	"sigs.k8s.io/yaml"
	cdispec "tags.cncf.io/container-device-interface/specs-go"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// driverVersion is the stand-in driver's version: the one the GPU machines of BENCHMARKS.md "GPU workloads" run.
const driverVersion = "580.159.04"

// driverLibraries are the stand-in driver's libraries and their SONAMEs, as NVIDIA's driver installs them.
var driverLibraries = map[string]string{
	"libcuda.so":                  "libcuda.so.1",
	"libnvidia-ml.so":             "libnvidia-ml.so.1",
	"libnvidia-ptxjitcompiler.so": "libnvidia-ptxjitcompiler.so.1",
}

// TestNVIDIACDIHooksThroughGVisor runs the GPU operator's CDI path with NVIDIA's own tools, short of a GPU, on
// containerd 1.7 and 2.4: NVIDIA's nvidia-ctk (built from NVIDIA's module, hack/tools/nvidia-toolkit.sh) generates
// the node's CDI spec from a driver stand-in of the driver's layout (its libraries as ELF shared objects with the
// driver's SONAMEs, its device nodes, nvidia-smi), and a container of a gVisor pod that asks for the spec's device
// over CRI gets what the spec's createContainer hooks, NVIDIA's nvidia-cdi-hook (create-symlinks,
// enable-cuda-compat, update-ldcache), do to its root: the libraries, their SONAME links and the library link,
// and an ld cache that holds them; the same as a runc container of the same pod shape gets.
//
// The stand-in's device nodes are null devices under the GPU's name; it has none of the driver's control and UVM
// nodes: a container spec with /dev/nvidiactl turns runsc's nvproxy on for it (runsc/specutils
// GPUFunctionalityRequested), which needs a real driver, and a null device as /dev/nvidia-uvm makes the pinned
// runsc's sandbox fail the container's start (StartSubcontainer: EOF) without nvproxy. On a GPU node nvproxy is on
// and the nodes are the driver's (make gpu-check).
func TestNVIDIACDIHooksThroughGVisor(t *testing.T) {
	ctk, hook := realcomponents.NVIDIAToolkit(t)
	s := newSuite(t)
	root := driverStandIn(t)
	spec := generateCDISpec(t, ctk, hook, root)
	s.releases(t, cdiContainerds, func(t *testing.T, c installertest.Containerd) {
		ctx := context.Background()
		n := s.cdiNode(t, c)
		n.install(t, 1)
		testutil.Must(t, n.WriteCDISpec("nvidia", spec))

		release, err := os.ReadFile("/proc/sys/kernel/osrelease")
		testutil.Must(t, err)
		host := strings.TrimSpace(string(release))
		const libDir = "/usr/lib/x86_64-linux-gnu"
		script := fmt.Sprintf(`cd %s; for l in libcuda.so libcuda.so.1 libnvidia-ml.so.1 libnvidia-ptxjitcompiler.so.1; do echo "link $l -> $(readlink $l)"; done
for l in libcuda.so.1 libnvidia-ml.so.1; do if grep -q "$l" /etc/ld.so.cache; then echo "cached $l"; fi; done
cat libcuda.so.%s | head -c 4 | od -c | head -1; cat /proc/version`, libDir, driverVersion)
		for _, handler := range []string{"", sandbox.DefaultHandler} {
			name := map[string]string{"": "runc", sandbox.DefaultHandler: "gVisor"}[handler]
			out, err := sandbox.OneShot{Socket: n.Socket(), Image: nodetest.BusyboxImage, Handler: handler, Command: []string{"sh", "-c", script},
				CDIDevices: []string{"nvidia.com/gpu=all"}, CgroupParent: n.CgroupParent() + "/cdi-hook", Purpose: "test"}.Run(ctx)
			if err != nil {
				t.Fatalf("a %s container with NVIDIA's CDI spec on %s: %v", name, c, err)
			}
			got := string(out)
			t.Logf("%s container on %s:\n%s", name, c, got)
			for _, want := range []string{
				"link libcuda.so -> libcuda.so.1\n",                       // create-symlinks, the spec's --link
				"link libcuda.so.1 -> libcuda.so." + driverVersion + "\n", // ldconfig's SONAME link (update-ldcache)
				"link libnvidia-ml.so.1 -> libnvidia-ml.so." + driverVersion + "\n",
				"cached libcuda.so.1\n", "cached libnvidia-ml.so.1\n", // the container's ld cache
				"177   E   L   F", // the driver's library, mounted
			} {
				if !strings.Contains(got, want) {
					t.Errorf("the %s container on %s lacks %q", name, c, want)
				}
			}
			if hosts := strings.Contains(got, "Linux version "+host+" "); hosts != (handler == "") { // gVisor reports a kernel of its own
				t.Errorf("the %s container on %s runs on the wrong kernel: %q", name, c, got)
			}
		}
	})
}

// driverStandIn builds a directory with the layout of an NVIDIA driver installation: its libraries (ELF shared
// objects with the driver's SONAMEs, compiled here), nvidia-smi, and the GPU's device node under /dev (a null
// device: no GPU here).
func driverStandIn(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	lib := filepath.Join(root, "usr/lib/x86_64-linux-gnu")
	for _, d := range []string{lib, filepath.Join(root, "usr/bin"), filepath.Join(root, "dev")} {
		testutil.Must(t, os.MkdirAll(d, 0o755))
	}
	empty := filepath.Join(t.TempDir(), "empty.c")
	testutil.Must(t, os.WriteFile(empty, []byte("int nvidia_stand_in;\n"), 0o644))
	for file, soname := range driverLibraries {
		out := filepath.Join(lib, file+"."+driverVersion)
		if b, err := exec.Command("gcc", "-shared", "-nostdlib", "-Wl,-soname,"+soname, "-o", out, empty).CombinedOutput(); err != nil {
			t.Fatalf("building the stand-in %s (gcc, as for the toolkit's cgo build): %v\n%s", out, err, b)
		}
	}
	testutil.Must(t, os.WriteFile(filepath.Join(root, "usr/bin/nvidia-smi"), []byte("#!/bin/sh\necho stand-in\n"), 0o755))
	testutil.Must(t, unix.Mknod(filepath.Join(root, "dev", "nvidia0"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))))
	return root
}

// generateCDISpec runs `nvidia-ctk cdi generate` over the driver stand-in (management mode: the one mode that needs no
// NVML, that is no GPU; its container edits are those of the GPU operator's specs) with hook as the hooks' program,
// and checks that the spec carries NVIDIA's hooks.
func generateCDISpec(t *testing.T, ctk, hook, root string) *cdispec.Spec {
	t.Helper()
	out := filepath.Join(t.TempDir(), "nvidia.yaml")
	cmd := exec.Command(ctk, "cdi", "generate", "--mode=management", "--driver-root="+root, "--dev-root="+root,
		"--nvidia-cdi-hook-path="+hook, "--output="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvidia-ctk cdi generate: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	testutil.Must(t, err)
	var spec cdispec.Spec
	if err := yaml.Unmarshal(data, &spec); err != nil {
		t.Fatalf("nvidia-ctk's spec: %v\n%s", err, data)
	}
	var commands []string
	for _, h := range spec.ContainerEdits.Hooks {
		if h.Path == hook && h.HookName == "createContainer" && len(h.Args) > 1 {
			commands = append(commands, h.Args[1])
		}
	}
	for _, want := range []string{"create-symlinks", "enable-cuda-compat", "update-ldcache"} {
		if !slices.Contains(commands, want) {
			t.Fatalf("nvidia-ctk's spec has no nvidia-cdi-hook %s hook (%v):\n%s", want, commands, data)
		}
	}
	t.Logf("nvidia-ctk's spec:\n%s", data)
	return &spec
}
