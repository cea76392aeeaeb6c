// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"flag"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

// addGPUFlags registers the GPU pre-flight's flags (install only).
func (f *flags) addGPUFlags(cmd string, fs *flag.FlagSet) {
	if cmd != "install" {
		return
	}
	fs.StringVar(&f.gpuImage, "nvproxy-preflight-image", "", "on a node with "+gpu.ControlDevice+", judge the NVIDIA driver with the shipped runsc's nvproxy by running "+
		gpu.CheckPath+" from this image (the installation image) in a one-shot runc container over CRI, and turn nvproxy on for the node's "+
		"sandboxes only with a supported driver; needs <host-root>/dev (read-only) to find the device and --restart=systemd")
	fs.DurationVar(&f.gpuDriverWait, "gpu-driver-wait", installer.DefaultGPUDriverWait, "on a node with NVIDIA GPUs on its PCI bus but no "+
		gpu.ControlDevice+" yet, how long to wait for the driver (the GPU operator's driver container) before deciding nvproxy; 0 decides at once")
	fs.StringVar(&f.gpuBinary, "nvproxy-preflight-binary", "", "as --nvproxy-preflight-image, but run this gvisor-gpu-check binary on the host "+
		"(the installer runs on the host itself: --host-root=/)")
}

// gpuPreflight is the pre-flight the flags ask for; nil without either flag (nvproxy then stays off).
func (f *flags) gpuPreflight(cmd string) (gpu.Preflight, error) {
	switch {
	case cmd != "install" || (f.gpuImage == "" && f.gpuBinary == ""):
		return nil, nil
	case f.gpuImage != "" && f.gpuBinary != "":
		return nil, errors.New("--nvproxy-preflight-image and --nvproxy-preflight-binary are two ways to run the same check: give one")
	case f.gpuBinary != "":
		if f.hostRoot != "/" {
			return nil, errors.New("--nvproxy-preflight-binary runs the check on this host: it needs --host-root=/ (in the installation pod use --nvproxy-preflight-image)")
		}
		return gpu.Exec{Binary: f.gpuBinary}, nil
	case f.restart != "systemd":
		return nil, errors.New("--nvproxy-preflight-image runs the check over containerd's CRI, which --restart=none does not talk to: use --restart=systemd")
	}
	return gpu.CRI{Socket: f.hostRoot + verify.CRISocket, Image: f.gpuImage, Creator: versionString()}, nil
}

// gpuProver is the GPU proof the flags ask for: with --nvproxy-preflight-image and the sandbox proof, the same image's
// probe in a gVisor sandbox over CRI (pf is gpuPreflight's result).
func gpuProver(pf gpu.Preflight, prover bool) gpu.Prover {
	if c, ok := pf.(gpu.CRI); ok && prover {
		return c
	}
	return nil
}
