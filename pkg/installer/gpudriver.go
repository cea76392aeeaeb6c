// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"context"
	"fmt"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// driverPoll is how often waitForDriver looks for the driver's control device.
const driverPoll = 2 * time.Second

// driverState is what waitForDriver found.
type driverState struct {
	present bool
	err     error
}

// waitForDriver says whether the node has the NVIDIA driver's control device (nothing without Options.GPU). On a
// node with NVIDIA GPUs on its PCI bus but no control device yet (the GPU operator's driver container is still
// building or loading the module), it waits up to Options.GPUDriverWait for it: deciding nvproxy before the driver
// runs would leave the node's GPU pods without a GPU until the installation pod is recreated. Install calls it
// before it takes the node's lock, which no wait for a driver may hold. A wait that ends without a driver leaves
// r.gpu saying so.
func (r *Run) waitForDriver(ctx context.Context) driverState {
	if r.opts.GPU == nil {
		return driverState{}
	}
	present, err := r.driverPresent(ctx)
	return driverState{present, err}
}

func (r *Run) driverPresent(ctx context.Context) (bool, error) {
	present, err := gpu.HasDevices(r.opts.HostRoot)
	if present || err != nil || r.opts.GPUDriverWait <= 0 {
		return present, err
	}
	sys := r.opts.SysRoot
	if sys == "" {
		sys = "/sys"
	}
	if gpus, err := gpu.HasGPUs(sys); err != nil || !gpus {
		return false, err
	}
	log := r.opts.Logger
	log.Info("NVIDIA GPUs on the PCI bus, no driver loaded yet: waiting for it", "step", "gpu-preflight", "device", gpu.ControlDevice, "timeout", r.opts.GPUDriverWait.String())
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, r.opts.GPUDriverWait)
	defer cancel()
	tick := time.NewTicker(driverPoll)
	defer tick.Stop()
	for {
		select {
		case <-wctx.Done():
			r.gpu = &gpu.Verdict{Status: nodecontract.GPUUnreadable, Message: fmt.Sprintf("the node has NVIDIA GPUs but no driver: no %s after waiting %s "+
				"(the GPU operator's driver container not running yet, or no driver installer for this pool); once the driver runs, "+
				"recreate this node's installation pod so that the installer judges it", gpu.ControlDevice, time.Since(start).Round(time.Second))}
			return false, nil
		case <-tick.C:
			if present, err := gpu.HasDevices(r.opts.HostRoot); present || err != nil {
				log.Info("NVIDIA driver loaded", "step", "gpu-preflight", "waited", time.Since(start).Round(time.Second).String())
				return present, err
			}
		}
	}
}
