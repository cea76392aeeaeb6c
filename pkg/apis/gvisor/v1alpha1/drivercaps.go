// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	"fmt"
	"strings"

	"gvisor.dev/gvisor/pkg/sentry/devices/nvproxy/nvconf"
)

// driverCapsAllowed describes the values of nvproxy-allowed-driver-capabilities in error messages.
const driverCapsAllowed = `"all", or a comma-separated list of compute, utility, graphics, video, ngx`

// checkDriverCaps accepts what runsc's own parser (nvconf.DriverCapsFromString) reads as a subset of the
// capabilities NVIDIA's container toolkit grants containers ("all": nvconf.AllContainerDriverCaps). The privileged
// ones runsc also knows (fabric-imex-mgmt, profiling, rdma) are refused: they reach the driver's fabric manager,
// the GPU's performance counters and DMA-BUF export, beyond what a pod's GPU share needs, and runsc leaves them out
// of "all" for that reason. Each capability once, no empty entries, no spaces: one spelling per set of values.
func checkDriverCaps(v string) error {
	seen := map[string]bool{}
	for _, name := range strings.Split(v, ",") {
		switch {
		case name == "":
			return fmt.Errorf("has an empty entry: write the capabilities separated by single commas")
		case strings.TrimSpace(name) != name:
			return fmt.Errorf("capability %q has spaces around it", name)
		case seen[name]:
			return fmt.Errorf("names %q twice", name)
		}
		seen[name] = true
		if name == nvconf.AllCapabilitiesName {
			continue
		}
		caps, _, err := nvconf.DriverCapsFromString(name)
		if err != nil {
			return fmt.Errorf("runsc does not know capability %q", name)
		}
		if caps&^nvconf.AllContainerDriverCaps != 0 {
			return fmt.Errorf("capability %q is privileged (not part of runsc's \"all\") and is not offered to pods", name)
		}
	}
	return nil
}
