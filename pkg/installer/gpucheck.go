// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"context"
	"fmt"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// checkGPU runs the GPU pre-flight (Options.GPU) on a node with NVIDIA devices and keeps its verdict for the plan
// (nvproxy on only with a supported driver) and the report. It never fails the install: a GPU node whose driver
// GPU pods cannot use still runs every other gVisor pod, with nvproxy off, and its report says what to fix. The
// pre-flight's container needs containerd: with containerd down (answered false) the verdict is that the driver
// was not read, and the next run reads it.
func (r *Run) checkGPU(ctx context.Context, driver driverState, answered bool, res *Result) {
	if r.opts.GPU == nil {
		return
	}
	log := r.opts.Logger
	present, err := driver.present, driver.err
	switch {
	case err != nil:
		r.gpu = &gpu.Verdict{Status: nodecontract.GPUUnreadable, Message: err.Error()}
	case !present && r.gpu != nil:
		// GPUs without a driver (waitForDriver's verdict)
	case !present:
		log.Info("no NVIDIA devices: nvproxy stays off", "step", "gpu-preflight", "device", gpu.ControlDevice)
		return
	case !answered:
		r.gpu = &gpu.Verdict{Status: nodecontract.GPUUnreadable, Message: "containerd did not answer before the install, so the GPU pre-flight did not run; the next run checks the driver"}
	default:
		v, err := r.opts.GPU.Check(ctx)
		if err != nil {
			v = gpu.Verdict{Status: nodecontract.GPUUnreadable, Message: err.Error()}
		}
		r.gpu = &v
	}
	res.GPU = r.gpu
	if r.gpu.NVProxy() {
		log.Info("NVIDIA driver supported: nvproxy on for this node's sandboxes", "step", "gpu-preflight", "driver", r.gpu.Driver, "gvisor", r.gpu.GVisor)
		return
	}
	log.Warn("GPU pods cannot run in gVisor on this node: nvproxy stays off", "step", "gpu-preflight", "status", string(r.gpu.Status),
		"driver", r.gpu.Driver, "reason", r.gpu.Message)
}

// proveGPU runs the GPU proof (Options.GPUProver) on a node whose driver passed the pre-flight, after the sandbox
// proof (which booted sandboxes with nvproxy on): a gVisor sandbox with the node's NVIDIA devices must see the
// driver the pre-flight read and at least one GPU. A failure changes the node's GPU verdict to nodecontract.GPUProofFailed with
// the reason (runsc's own where the sandbox did not boot) and does not fail the install: every other gVisor pod runs.
func (r *Run) proveGPU(ctx context.Context, res *Result) {
	if r.opts.GPUProver == nil || r.gpu == nil || r.gpu.Status != nodecontract.GPUSupported {
		return
	}
	v := gpu.ProveNode(ctx, r.opts.GPUProver, r.opts.HostRoot, *r.gpu)
	if v.Status == nodecontract.GPUProofFailed {
		r.opts.Logger.Warn("GPU pods cannot run in gVisor on this node: the GPU proof failed", "step", "gpu-proof", "driver", v.Driver, "error", v.Message)
	} else {
		r.opts.Logger.Info("GPU proven: a gVisor sandbox reaches the node's GPUs", "step", "gpu-proof", "driver", v.Driver, "gpus", v.GPUs)
	}
	r.gpu, res.GPU = &v, &v
}

// gpuReady says whether this GPU node's GPU pods can run in gVisor: a supported driver, and with a GPU proof
// configured (Options.GPUProver) a proof that saw GPUs.
func (r *Run) gpuReady() bool {
	return r.gpu.Status == nodecontract.GPUSupported && (r.opts.GPUProver == nil || r.gpu.GPUs > 0)
}

// GPUReport is the report line's GPU part of verdict v (nil: none), for install's report and prove's line.
func GPUReport(v *gpu.Verdict) *nodecontract.GPUReport {
	if v == nil {
		return nil
	}
	return &nodecontract.GPUReport{Status: v.Status, Driver: v.Driver, NVProxy: v.NVProxy(), GPUs: v.GPUs, Advice: gpuAdvice(*v)}
}

// gpuAdvice is what an operator does about v: nothing for a supported driver, else the driver to install (the
// pre-flight's nearest supported version of the branch, or the supported branches), or the pre-flight's reason.
func gpuAdvice(v gpu.Verdict) string {
	switch {
	case v.Status == nodecontract.GPUSupported:
		return ""
	case v.Status == nodecontract.GPUProofFailed:
		return v.Message
	case v.Nearest != "":
		return fmt.Sprintf("install NVIDIA driver %s, the nearest of its branch that the shipped runsc (gVisor %s) supports", v.Nearest, v.GVisor)
	case len(v.Branches) > 0:
		return fmt.Sprintf("the shipped runsc (gVisor %s) supports no driver of this branch; install one of %s", v.GVisor, strings.Join(v.Branches, ", "))
	}
	return v.Message
}
