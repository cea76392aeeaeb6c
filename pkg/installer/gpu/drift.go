// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gpu

import "strings"

// runscDriverRefusals are runsc's own words (gVisor's runsc/sandbox and pkg/sentry/devices/nvproxy) for a sandbox
// it will not start with nvproxy on because of the node's NVIDIA driver: no driver to ask (the control device is
// gone: the driver unloaded, or mid-upgrade) or a version the runsc does not support.
var runscDriverRefusals = []string{"failed to get Nvidia driver version", "unsupported Nvidia driver version"}

// DriverChanged is the diagnosis of a failed sandbox proof whose error (runsc's reason included) is runsc refusing
// the node's NVIDIA driver, "" for any other failure. nvproxy is on only where an install judged the node's driver
// supported, so the driver changed since that install (the GPU operator's upgrade, or its driver unloaded); until
// the node runs a driver the shipped runsc supports, every gVisor sandbox there fails, GPU pod or not. The DaemonSet
// mode judges a driver only at install, so the fix names both ways out.
func DriverChanged(proofErr error) string {
	if proofErr == nil {
		return ""
	}
	for _, words := range runscDriverRefusals {
		if strings.Contains(proofErr.Error(), words) {
			return "the node's NVIDIA driver changed since the install turned nvproxy on (upgraded or unloaded): run a driver " +
				"the shipped runsc supports, or recreate this node's installation pod to judge the new one"
		}
	}
	return ""
}
