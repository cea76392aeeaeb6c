// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gpu

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// ProveNode runs the GPU proof p on a node (root hostRoot) whose verdict v passed the pre-flight: a gVisor sandbox
// with the node's NVIDIA devices must reach the driver the pre-flight read and list at least one GPU. It returns v
// with the GPUs it saw, or turned into ProofFailed with the reason (runsc's own where the sandbox did not boot).
func ProveNode(ctx context.Context, p Prover, hostRoot string, v Verdict) Verdict {
	devices, err := Devices(hostRoot)
	var probe Probe
	if err == nil {
		probe, err = p.ProveGPU(ctx, devices)
	}
	switch {
	case err != nil:
	case probe.Driver != v.Driver:
		err = fmt.Errorf("the GPU proof's sandbox reached NVIDIA driver %s, the pre-flight read %s", probe.Driver, v.Driver)
	case len(probe.GPUs) == 0:
		err = fmt.Errorf("the NVIDIA driver lists no GPU in the GPU proof's sandbox (devices %s)", strings.Join(devices, ", "))
	}
	if err != nil {
		v.Status, v.Message = nodecontract.GPUProofFailed, err.Error()
		return v
	}
	v.GPUs = len(probe.GPUs)
	return v
}

// gpuDevice matches the per-GPU device nodes (/dev/nvidia0, /dev/nvidia1, ...).
var gpuDevice = regexp.MustCompile(`^nvidia[0-9]+$`)

// Devices are the node's NVIDIA device nodes a GPU container gets (what NVIDIA's device plugin or CDI spec hands
// over for all GPUs): the control device, the unified memory devices, and one per GPU, sorted.
func Devices(hostRoot string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(hostRoot, "dev"))
	if err != nil {
		return nil, fmt.Errorf("listing the node's devices: %w", err)
	}
	var devices []string
	for _, e := range entries {
		switch name := e.Name(); {
		case name == "nvidiactl", name == "nvidia-uvm", name == "nvidia-uvm-tools", gpuDevice.MatchString(name):
			devices = append(devices, "/dev/"+name)
		}
	}
	slices.Sort(devices)
	return devices, nil
}

// Probe is what the GPU proof's program (gvisor-gpu-check probe) read from the driver inside the sandbox.
type Probe struct {
	Driver string      `json:"driver"`
	GPUs   []ProbedGPU `json:"gpus"`
}

// ProbedGPU is one GPU the driver listed in the sandbox.
type ProbedGPU struct {
	PCI    string `json:"pci"`
	Device string `json:"device"`
	Minor  uint32 `json:"minor"`
}

// Prover is the GPU proof: a gVisor sandbox with the node's GPU devices asks the driver, through runsc's nvproxy,
// for its version and its GPUs.
type Prover interface {
	ProveGPU(ctx context.Context, devices []string) (Probe, error)
}

// ProveGPU implements Prover: gvisor-gpu-check probe in a one-shot gVisor sandbox (runtime handler runsc, the
// node's runsc.toml, whose nvproxy the install just turned on) with devices read-write, as NVIDIA's device plugin
// hands them to a GPU container. A sandbox that does not boot is explained by runsc's own log (sandbox.OneShot).
func (c CRI) ProveGPU(ctx context.Context, devices []string) (Probe, error) {
	one := sandbox.OneShot{
		Socket: c.Socket, Image: c.Image, Command: []string{CheckPath, "probe"}, Handler: sandbox.DefaultHandler,
		Devices: devices, WritableDevices: true, Timeout: Timeout, CgroupParent: c.CgroupParent, Creator: c.Creator,
		Purpose: "proves that a GPU container of this node reaches its GPUs through gVisor",
	}
	if c.Binary != "" {
		// The node's own gvisor-gpu-check in the sandbox's own (pause) image: the OperatingSystemConfig mode has the
		// binary on the node, and the installation image is not in containerd.
		one.Image, one.Mounts, one.Command = "", []string{c.Binary}, []string{c.Binary, "probe"}
	}
	out, err := one.Run(ctx)
	if err != nil {
		return Probe{}, fmt.Errorf("the GPU proof (%s probe in a gVisor sandbox with %d NVIDIA devices): %w", one.Command[0], len(devices), err)
	}
	return decodeOne[Probe]("the GPU proof's answer", out)
}
