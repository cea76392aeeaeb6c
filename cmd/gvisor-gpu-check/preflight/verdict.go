// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package preflight

// Status is the pre-flight's word for a node's NVIDIA driver, as runsc's nvproxy would treat it. The words are a
// contract: the installer (pkg/installer/gpu) reads them back.
type Status string

const (
	// NoDevices means the node has no /dev/nvidiactl: not a GPU node, or its driver is not loaded (yet).
	NoDevices Status = "no-devices"
	// Supported means runsc's nvproxy supports the node's driver; GPU pods can start in gVisor.
	Supported Status = "supported"
	// Unsupported means runsc knows the driver's ABI but does not support it; every GPU pod fails to start.
	Unsupported Status = "unsupported"
	// Unknown means runsc has no ABI for the driver at all (newer than the shipped runsc, or a build it never saw);
	// every GPU pod fails to start.
	Unknown Status = "unknown"
	// Malformed means the version the driver gave is not one runsc can parse.
	Malformed Status = "malformed"
	// Unreadable means /dev/nvidiactl exists, but the driver did not answer runsc's version query.
	Unreadable Status = "unreadable"
)

// Verdict is what the pre-flight says about a node: one JSON object on gvisor-gpu-check's stdout.
type Verdict struct {
	// Status is the verdict's word.
	Status Status `json:"status"`
	// Driver is the driver version as the driver gave it ("" without devices, or when unreadable).
	Driver string `json:"driver,omitempty"`
	// Nearest is the supported version closest to Driver on its branch (same major version): the one to install
	// instead; "" when the driver is supported or runsc supports no version of its branch.
	Nearest string `json:"nearest,omitempty"`
	// Branches are the driver branches runsc supports, each with its newest supported version ("580.126.09"), for a
	// driver whose branch runsc does not support.
	Branches []string `json:"branches,omitempty"`
	// GVisor is the version of the gVisor module whose nvproxy judged (the runsc the image ships).
	GVisor string `json:"gvisor"`
	// Message says it in words, with the fix.
	Message string `json:"message"`
}
