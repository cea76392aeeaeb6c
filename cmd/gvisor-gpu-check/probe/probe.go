// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package probe asks the NVIDIA driver for its version and its GPUs with the first two frontend ioctls NVIDIA's
// user-space libraries issue (NV_ESC_CHECK_VERSION_STR, NV_ESC_CARD_INFO on /dev/nvidiactl), laid out as gVisor's
// pkg/abi/nvgpu has them. Run inside a gVisor sandbox, the ioctls go through runsc's nvproxy to the node's driver,
// so an answer shows that a GPU container of this node reaches its GPUs through gVisor.
//
// Why a static program of ours and not the driver's nvidia-smi: nvidia-smi needs the driver's libraries and glibc
// in the sandbox, which the GPU operator's CDI spec mounts into a pod's containers but the installer's proof would
// have to assemble from the node's driver installation (its paths differ between the GPU operator, Garden Linux's
// installer and distribution packages). This program is in the installation image already and needs nothing of
// the node but the device nodes.
package probe

import (
	"bytes"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
	"gvisor.dev/gvisor/pkg/abi/linux"
	"gvisor.dev/gvisor/pkg/abi/nvgpu"
)

const (
	// ControlDevice is the driver's control device.
	ControlDevice = "/dev/nvidiactl"
	// maxDevices is the driver's NV_MAX_DEVICES: NV_ESC_CARD_INFO fills an array of that many entries.
	maxDevices = 32
	// versionQuery is NV_RM_API_VERSION_CMD_QUERY: the driver returns its version without checking ours (530+).
	versionQuery = '2'
	// replyRecognized is NV_RM_API_VERSION_REPLY_RECOGNIZED.
	replyRecognized = 1
)

// GPU is one GPU the driver lists.
type GPU struct {
	// PCI is its PCI address, domain:bus:slot.function.
	PCI string `json:"pci"`
	// Device is its PCI vendor and device id ("10de:2335").
	Device string `json:"device"`
	// Minor is its device node's minor number (/dev/nvidia<minor>).
	Minor uint32 `json:"minor"`
}

// Result is what the driver answered.
type Result struct {
	Driver string `json:"driver"`
	GPUs   []GPU  `json:"gpus"`
}

// Ask opens ctl and asks the driver.
func Ask(ctl string) (Result, error) {
	fd, err := unix.Open(ctl, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return Result{}, fmt.Errorf("opening %s: %w", ctl, err)
	}
	defer unix.Close(fd)
	version, err := driverVersion(fd)
	if err != nil {
		return Result{}, err
	}
	gpus, err := cards(fd)
	if err != nil {
		return Result{}, err
	}
	return Result{Driver: version, GPUs: gpus}, nil
}

func driverVersion(fd int) (string, error) {
	params := nvgpu.RMAPIVersion{Cmd: versionQuery}
	if err := ioctl(fd, nvgpu.NV_ESC_CHECK_VERSION_STR, unsafe.Pointer(&params), unsafe.Sizeof(params)); err != nil {
		return "", fmt.Errorf("NV_ESC_CHECK_VERSION_STR: %w", err)
	}
	if params.Reply != replyRecognized {
		return "", fmt.Errorf("NV_ESC_CHECK_VERSION_STR: reply %d, want %d (a driver older than 530 does not answer the query)", params.Reply, replyRecognized)
	}
	version := string(bytes.TrimRight(params.VersionString[:], "\x00"))
	if version == "" {
		return "", fmt.Errorf("NV_ESC_CHECK_VERSION_STR: the driver gave no version")
	}
	return version, nil
}

func cards(fd int) ([]GPU, error) {
	var infos [maxDevices]nvgpu.IoctlCardInfo
	if err := ioctl(fd, nvgpu.NV_ESC_CARD_INFO, unsafe.Pointer(&infos[0]), unsafe.Sizeof(infos)); err != nil {
		return nil, fmt.Errorf("NV_ESC_CARD_INFO: %w", err)
	}
	gpus := []GPU{}
	for _, c := range infos {
		if c.Valid == 0 {
			continue
		}
		p := c.PCIInfo
		gpus = append(gpus, GPU{
			PCI:    fmt.Sprintf("%04x:%02x:%02x.%x", p.Domain, p.Bus, p.Slot, p.Function),
			Device: fmt.Sprintf("%04x:%04x", p.VendorID, p.DeviceID),
			Minor:  c.MinorNumber,
		})
	}
	return gpus, nil
}

// ioctl issues frontend ioctl nr with size bytes of parameters at p, as the driver's libraries encode it.
func ioctl(fd int, nr uint32, p unsafe.Pointer, size uintptr) error {
	cmd := uintptr(linux.IOWR(nvgpu.NV_IOCTL_MAGIC, nr, uint32(size)))
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), cmd, uintptr(p)); errno != 0 {
		return errno
	}
	return nil
}
