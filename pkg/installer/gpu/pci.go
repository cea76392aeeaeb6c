// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gpu

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const (
	// nvidiaVendor is NVIDIA's PCI vendor id.
	nvidiaVendor = 0x10de
	// displayClass is the PCI base class of display controllers (VGA 0x0300, 3D 0x0302: every NVIDIA GPU); NVIDIA's
	// other PCI functions (NVSwitch bridges, audio) have other classes.
	displayClass = 0x03
)

// HasGPUs says whether the node has NVIDIA GPUs on its PCI bus (sysRoot is its sysfs, /sys: the kernel's view,
// the same in a container), with or without a driver: a GPU node whose driver is not loaded yet has them and no
// ControlDevice.
func HasGPUs(sysRoot string) (bool, error) {
	dir := filepath.Join(sysRoot, "bus", "pci", "devices")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // no PCI bus (some virtual machines)
	}
	if err != nil {
		return false, fmt.Errorf("listing the node's PCI devices: %w", err)
	}
	for _, e := range entries {
		vendor, verr := readHex(filepath.Join(dir, e.Name(), "vendor"))
		class, cerr := readHex(filepath.Join(dir, e.Name(), "class"))
		if verr == nil && cerr == nil && vendor == nvidiaVendor && class>>16 == displayClass {
			return true, nil
		}
	}
	return false, nil
}

// readHex reads a sysfs attribute written as 0x-prefixed hex ("0x10de\n").
func readHex(path string) (uint64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(string(data)), "0x"), 16, 32)
}
