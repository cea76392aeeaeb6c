// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gpu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
)

const (
	// ControlDevice is the NVIDIA driver's control device: the one runsc opens to ask the driver's version, and
	// whose absence makes nvproxy fail every sandbox.
	ControlDevice = "/dev/nvidiactl"
	// CheckPath is the pre-flight in the installation image (pkg/images.GPUCheckPath).
	CheckPath = "/gvisor-gpu-check"
	// Timeout bounds one pre-flight: a runc container's start and a version ioctl (the image is on the node).
	Timeout = 60 * time.Second
)

// Preflight judges the node's driver. It is called only on a node with ControlDevice (HasDevices).
type Preflight interface {
	Check(ctx context.Context) (Verdict, error)
}

// HasDevices says whether the node whose root is at hostRoot has the NVIDIA control device.
func HasDevices(hostRoot string) (bool, error) {
	_, err := os.Stat(filepath.Join(hostRoot, ControlDevice))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("looking for the NVIDIA control device %s: %w", ControlDevice, err)
	}
	return true, nil
}

// CRI runs the pre-flight in a one-shot runc container from the installation image, over the node's CRI, with
// ControlDevice as its one device, read-only (the version query is an ioctl on a read-only descriptor, as runsc
// opens it).
type CRI struct {
	// Socket is the CRI socket as the installer sees it.
	Socket string
	// Image is the installation image (the pod's own: on the node already).
	Image string
	// CgroupParent overrides the kubelet's BestEffort cgroup (tests without a kubelet).
	CgroupParent string
	// Creator names the installer in the sandbox's annotation.
	Creator string
	// Binary, if set, is the node path of gvisor-gpu-check for the GPU proof, run in the sandbox's own image instead
	// of Image (the OperatingSystemConfig mode; ProveGPU).
	Binary string
}

// Check implements Preflight.
func (c CRI) Check(ctx context.Context) (Verdict, error) {
	out, err := sandbox.OneShot{
		Socket: c.Socket, Image: c.Image, Command: []string{CheckPath, "preflight"},
		Devices: []string{ControlDevice}, Timeout: Timeout, CgroupParent: c.CgroupParent, Creator: c.Creator,
		Purpose: "judges this node's NVIDIA driver with the shipped runsc's nvproxy",
	}.Run(ctx)
	if err != nil {
		return Verdict{}, fmt.Errorf("running the GPU pre-flight (%s) in a runc container: %w", CheckPath, err)
	}
	return Parse(out)
}

// Exec runs the pre-flight binary on the host (the OperatingSystemConfig mode's units run as root there).
type Exec struct {
	// Binary is the pre-flight's path as this process sees it.
	Binary string
	// HostRoot is where the node's / is ("" or "/" on the node itself; the check enters it with chroot(2)).
	HostRoot string
}

// Check implements Preflight.
func (e Exec) Check(ctx context.Context) (Verdict, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	root := e.HostRoot
	if root == "" {
		root = "/"
	}
	cmd := exec.CommandContext(ctx, e.Binary, "preflight", "--host-root="+root)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Verdict{}, fmt.Errorf("running the GPU pre-flight %s: %w: %s", e.Binary, err, bound(stderr.Bytes()))
	}
	return Parse(out)
}
