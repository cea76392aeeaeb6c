// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig

import (
	"fmt"
)

// PluginID returns the CRI plugin ID that holds `containerd.runtimes` in a config file of the given version.
func PluginID(version int64) (string, error) {
	switch version {
	case 1:
		return "cri", nil
	case 2:
		return "io.containerd.grpc.v1.cri", nil
	case 3, 4:
		return "io.containerd.cri.v1.runtime", nil
	}
	return "", fmt.Errorf("unknown containerd config version %d (known: 1, 2, 3, 4)", version)
}

// criPluginNames are the names under which disabled_plugins can switch off the CRI runtime, for any version.
var criPluginNames = []string{"cri", "io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime", "io.containerd.cri.v1.images"}
