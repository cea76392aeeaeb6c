// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package preflight

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
	"gvisor.dev/gvisor/pkg/sentry/devices/nvproxy"
)

// ControlDevice is the NVIDIA driver's control device, the one runsc asks for the driver's version.
const ControlDevice = "/dev/nvidiactl"

// DriverSource gives the node's driver version: present is false on a node without ControlDevice.
type DriverSource interface {
	DriverVersion() (version string, present bool, err error)
}

// Host reads the version of the node whose root file system is at Root ("/" on the node, "/host" in the
// installation pod) with runsc's own code, nvproxy.HostDriverVersion: the NV_ESC_CHECK_VERSION_STR ioctl on
// /dev/nvidiactl, exactly as runsc does when a GPU sandbox starts (not /proc/driver/nvidia/version, which a
// driver container may not expose). That function opens the fixed path /dev/nvidiactl, so a Root other than "/" is
// entered with chroot(2) first (it needs CAP_SYS_CHROOT and changes this process' root for good: run it in a
// process of its own, as gvisor-gpu-check does).
type Host struct{ Root string }

// DriverVersion implements DriverSource.
func (h Host) DriverVersion() (string, bool, error) {
	root := h.Root
	if root == "" {
		root = "/"
	}
	if _, err := os.Stat(filepath.Join(root, ControlDevice)); errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	} else if err != nil {
		return "", false, fmt.Errorf("looking for %s under %s: %w", ControlDevice, root, err)
	}
	if filepath.Clean(root) != "/" {
		if err := unix.Chroot(root); err != nil {
			return "", true, fmt.Errorf("entering the node's root %s to open %s as runsc does: %w", root, ControlDevice, err)
		}
		if err := os.Chdir("/"); err != nil {
			return "", true, err
		}
	}
	v, err := nvproxy.HostDriverVersion()
	if err != nil {
		return "", true, fmt.Errorf("asking the NVIDIA driver for its version as runsc does: %w", err)
	}
	return v, true, nil
}

// Given is a version named on the command line (--driver-version): the check without a GPU, or for a driver
// about to be installed.
type Given string

// DriverVersion implements DriverSource.
func (g Given) DriverVersion() (string, bool, error) { return string(g), true, nil }

// Check is the pre-flight: the node's driver from src, judged by Judge.
func Check(src DriverSource, gvisor string) Verdict {
	version, present, err := src.DriverVersion()
	switch {
	case !present:
		return Verdict{Status: NoDevices, GVisor: gvisor,
			Message: fmt.Sprintf("no %s on this node: no NVIDIA driver is loaded, and no GPU pod can start here (a CPU node, or a GPU node before its driver container ran)", ControlDevice)}
	case err != nil:
		return Verdict{Status: Unreadable, GVisor: gvisor,
			Message: fmt.Sprintf("%v: GPU pods cannot start in gVisor on this node until the driver answers (check the driver container's logs and dmesg)", err)}
	}
	return Judge(version, gvisor)
}
