// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// writeCNIConfig writes the pod network: a bridge (named bridge, private to the node's network namespace, so it
// and the ip_forward the bridge plugin sets vanish with the node) with host-local addresses whose state lives in
// ipamDir instead of /var/lib/cni. The network has no uplink: nothing leaves the node.
func writeCNIConfig(confDir, bridge, ipamDir string) error {
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       "gvisor-test",
		"plugins": []any{map[string]any{
			"type":      "bridge",
			"bridge":    bridge,
			"isGateway": true,
			"ipMasq":    false,
			"ipam": map[string]any{
				"type":    "host-local",
				"ranges":  [][]map[string]string{{{"subnet": "10.88.0.0/24"}}},
				"routes":  []map[string]string{{"dst": "0.0.0.0/0"}},
				"dataDir": ipamDir,
			},
		}},
	}
	data, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(confDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(confDir, "10-gvisor-test.conflist"), data, 0o644)
}
