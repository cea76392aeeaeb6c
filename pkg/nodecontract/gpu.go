// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodecontract

// GPUStatus is the word for a node's NVIDIA driver: the GPU pre-flight's (cmd/gvisor-gpu-check/preflight, a module
// of its own whose words a test holds to these), or GPUProofFailed, the installer's. The installer's report carries
// it (GPUReport.Status), and the health check reads it back.
type GPUStatus string

// The pre-flight's words.
const (
	GPUNoDevices   GPUStatus = "no-devices"
	GPUSupported   GPUStatus = "supported"
	GPUUnsupported GPUStatus = "unsupported"
	GPUUnknown     GPUStatus = "unknown"
	GPUMalformed   GPUStatus = "malformed"
	GPUUnreadable  GPUStatus = "unreadable"
)

// GPUProofFailed is the installer's word for a GPU node whose driver passed the pre-flight but whose GPU proof did
// not: nvproxy stays on (the driver is one the shipped runsc supports), and the report names what failed.
const GPUProofFailed GPUStatus = "proof-failed"
