// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// preflight is an injected GPU pre-flight: its verdict or error, and how often it was asked.
type preflight struct {
	v     gpu.Verdict
	err   error
	calls int
}

func (p *preflight) Check(context.Context) (gpu.Verdict, error) {
	p.calls++
	return p.v, p.err
}

// TestGPUNodeTurnsNVProxyOn: nvproxy is on in a node's runsc.toml exactly when the node has NVIDIA devices and the
// pre-flight says the driver is supported, whatever the pool's table says; a driver GPU pods cannot use never fails
// the install (every other gVisor pod still runs there) and the report names it with the fix.
func TestGPUNodeTurnsNVProxyOn(t *testing.T) {
	h := newHost(t, readTestdata(t, "configs/default-2.4.toml"))
	pf := &preflight{}
	o := h.options()
	o.GPU = pf
	// A hand-written pool table that asks for nvproxy node-wide, as the field's extension wrote it.
	o.RunscConfig = filepath.Join(t.TempDir(), "runsc.toml")
	writeFile(t, o.RunscConfig, []byte("[runsc_config]\n  net-raw = \"true\"\n  nvproxy = \"true\"\n"))
	installed := func() string {
		t.Helper()
		p, err := hostfs.ResolveUnder(h.path("/"), runscconfig.NodePath)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	install := func(what string) installer.Result {
		t.Helper()
		res, err := installer.Install(context.Background(), o)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return res
	}

	res := install("a node without NVIDIA devices")
	if pf.calls != 0 || res.GPU != nil || res.Report().GPU != nil || strings.Contains(installed(), "nvproxy") {
		t.Errorf("no devices: pre-flight asked %d times, verdict %v, runsc.toml %q; want no pre-flight and nvproxy off", pf.calls, res.GPU, installed())
	}

	h.write(t, gpu.ControlDevice, nil) // the pre-flight is injected: HasDevices only looks for the node path
	pf.v = gpu.Verdict{Status: nodecontract.GPUSupported, Driver: "580.159.04", GVisor: "v1"}
	res = install("a GPU node with a supported driver")
	if pf.calls != 1 || !strings.Contains(installed(), "  nvproxy = \"true\"\n") || !strings.Contains(installed(), "  net-raw = \"true\"\n") {
		t.Errorf("supported driver: pre-flight asked %d times, runsc.toml %q; want nvproxy on and the pool's flags", pf.calls, installed())
	}
	line := res.Report().String()
	if back, ok := nodecontract.ParseReport(line); !ok || back.GPU == nil || !back.GPU.NVProxy || back.GPU.Driver != "580.159.04" || back.GPU.Advice != "" {
		t.Errorf("report %q: want the supported driver and nvproxy on", line)
	}

	pf.v = gpu.Verdict{Status: nodecontract.GPUUnknown, Driver: "570.211.01", Nearest: "570.195.03", GVisor: "v1"}
	res = install("a GPU node whose driver the runsc does not know")
	if strings.Contains(installed(), "nvproxy") || !strings.Contains(res.Summary(), "GPU: unknown NVIDIA driver 570.211.01, nvproxy off: install NVIDIA driver 570.195.03") {
		t.Errorf("unknown driver: runsc.toml %q, summary %q; want nvproxy off and the driver to install", installed(), res.Summary())
	}

	pf.v, pf.err = gpu.Verdict{}, errors.New("the node does not have the image")
	res = install("a GPU node whose pre-flight did not run")
	if strings.Contains(installed(), "nvproxy") || res.GPU == nil || res.GPU.Status != nodecontract.GPUUnreadable || !strings.Contains(res.Report().String(), "the node does not have the image") {
		t.Errorf("pre-flight failed: runsc.toml %q, report %q; want nvproxy off and the reason", installed(), res.Report())
	}
}

// gpuProver is an injected GPU proof: its answer or error, and the devices it was given.
type gpuProver struct {
	probe   gpu.Probe
	err     error
	devices []string
}

func (p *gpuProver) ProveGPU(_ context.Context, devices []string) (gpu.Probe, error) {
	p.devices = devices
	return p.probe, p.err
}

// TestGPUProof: on a node whose driver passed the pre-flight the installer proves a gVisor sandbox with the node's
// NVIDIA devices reaches the driver; a proof that fails (or reaches another driver, or no GPU) is reported with
// its reason and leaves the install and nvproxy as they are; a node whose driver did not pass is not proved.
func TestGPUProof(t *testing.T) {
	h := newHost(t, readTestdata(t, "configs/default-2.4.toml"))
	for _, d := range []string{"nvidiactl", "nvidia0", "nvidia1", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset", "null"} {
		h.write(t, "/dev/"+d, nil)
	}
	pf := &preflight{v: gpu.Verdict{Status: nodecontract.GPUSupported, Driver: "580.159.04", GVisor: "v1"}}
	prover := &gpuProver{}
	prover.probe.Driver = "580.159.04"
	prover.probe.GPUs = make([]gpu.ProbedGPU, 2)
	o := h.options()
	o.GPU, o.GPUProver = pf, prover
	res, err := installer.Install(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	wantDevices := []string{"/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia0", "/dev/nvidia1", "/dev/nvidiactl"}
	if !slices.Equal(prover.devices, wantDevices) || !strings.Contains(res.Report().String(), "GPU: supported NVIDIA driver 580.159.04, nvproxy on, 2 GPUs proven;") {
		t.Errorf("proven GPU node: devices %v (want %v), report %q", prover.devices, wantDevices, res.Report())
	}

	for _, c := range []struct {
		name, driver string
		gpus         int
		err          error
		reason       string
	}{
		{"the sandbox does not boot", "", 0, errors.New("waiting for sandbox to start: EOF; runsc: unsupported Nvidia driver version"), "unsupported Nvidia driver version"},
		{"another driver in the sandbox", "570.195.03", 1, nil, "reached NVIDIA driver 570.195.03, the pre-flight read 580.159.04"},
		{"no GPU in the sandbox", "580.159.04", 0, nil, "lists no GPU"},
	} {
		prover.probe.Driver, prover.probe.GPUs, prover.err = c.driver, make([]gpu.ProbedGPU, c.gpus), c.err
		res, err := installer.Install(context.Background(), o)
		line := res.Report().String()
		if err != nil || res.GPU == nil || res.GPU.Status != nodecontract.GPUProofFailed || !strings.Contains(line, "GPU: proof-failed NVIDIA driver 580.159.04, nvproxy on: ") || !strings.Contains(line, c.reason) {
			t.Errorf("%s: %v, report %q; want the install to pass and the proof's failure reported with %q", c.name, err, line, c.reason)
		}
		if back, ok := nodecontract.ParseReport(line); !ok || back.GPU == nil || back.GPU.Status != nodecontract.GPUProofFailed {
			t.Errorf("%s: the report does not read back: %+v", c.name, back)
		}
	}

	pf.v = gpu.Verdict{Status: nodecontract.GPUUnknown, Driver: "570.211.01", Nearest: "570.195.03"}
	prover.devices = nil
	if _, err := installer.Install(context.Background(), o); err != nil || prover.devices != nil {
		t.Errorf("a driver the pre-flight refused: %v, GPU proof with %v; want no proof", err, prover.devices)
	}
}

// pciFunction writes one PCI function into a fake sysfs.
func pciFunction(t *testing.T, sys, addr, vendor, class string) {
	t.Helper()
	dir := filepath.Join(sys, "bus/pci/devices", addr)
	writeFile(t, filepath.Join(dir, "vendor"), []byte(vendor+"\n"))
	writeFile(t, filepath.Join(dir, "class"), []byte(class+"\n"))
}

// TestGPUDriverWait: on a node with NVIDIA GPUs on its PCI bus and no driver yet, the installer waits for the
// driver (bounded) and judges it once it is there; a driver that does not come is reported, with nvproxy off and the
// install passing; NVIDIA functions that are not GPUs (an NVSwitch) and other vendors' GPUs are not waited for.
func TestGPUDriverWait(t *testing.T) {
	h := newHost(t, readTestdata(t, "configs/default-2.4.toml"))
	sys := t.TempDir()
	pciFunction(t, sys, "0000:00:02.0", "0x8086", "0x030000") // another vendor's GPU
	pciFunction(t, sys, "0000:05:00.0", "0x10de", "0x068000") // an NVSwitch
	pf := &preflight{v: gpu.Verdict{Status: nodecontract.GPUSupported, Driver: "580.159.04"}}
	o := h.options()
	o.GPU, o.SysRoot, o.GPUDriverWait = pf, sys, time.Minute
	start := time.Now()
	if res, err := installer.Install(context.Background(), o); err != nil || res.GPU != nil || time.Since(start) > 10*time.Second {
		t.Fatalf("no NVIDIA GPU: %v, verdict %v after %s; want no wait and no verdict", err, res.GPU, time.Since(start))
	}

	pciFunction(t, sys, "0000:3b:00.0", "0x10de", "0x030200") // an H200
	testutil.Must(t, os.MkdirAll(h.path("/dev"), 0o755))
	loaded := make(chan error, 1)
	go func() {
		time.Sleep(time.Second)
		loaded <- os.WriteFile(h.path(gpu.ControlDevice), nil, 0o644) // the driver container loads the module
	}()
	res, err := installer.Install(context.Background(), o)
	testutil.Must(t, <-loaded)
	if err != nil || res.GPU == nil || res.GPU.Status != nodecontract.GPUSupported || pf.calls != 1 {
		t.Errorf("driver loaded during the wait: %v, verdict %+v, %d pre-flights; want it judged supported", err, res.GPU, pf.calls)
	}

	testutil.Must(t, os.Remove(h.path(gpu.ControlDevice)))
	o.GPUDriverWait = time.Second
	res, err = installer.Install(context.Background(), o)
	if err != nil || res.GPU == nil || res.GPU.NVProxy() || !strings.Contains(res.Report().String(), "NVIDIA GPUs but no driver") || pf.calls != 1 {
		t.Errorf("no driver after the wait: %v, report %q, %d pre-flights; want nvproxy off and the missing driver named", err, res.Report(), pf.calls)
	}
}
