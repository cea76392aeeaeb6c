// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package runscconfig

import (
	"fmt"

	"github.com/pelletier/go-toml/v2"
)

// nvproxyFlag is runsc's flag that turns its NVIDIA GPU proxy on for every sandbox the node starts.
const nvproxyFlag = "nvproxy"

// NodeOptions are what a node itself adds to its pool's flags table.
type NodeOptions struct {
	// NVProxy turns nvproxy on: only on a node whose NVIDIA driver the shipped runsc supports (the GPU pre-flight,
	// pkg/installer/gpu). In a Kubernetes pod runsc boots the sandbox from the pause container's spec, which never
	// carries the GPU devices (they belong to the pod's containers), so nvproxy must be on for the node's
	// sandboxes for a GPU container to reach the driver; on a node without the driver it fails every sandbox.
	NVProxy bool
}

// ForNode is the flags table table (Table's form, validated by Validate) as the node installs it: nvproxy on
// exactly when o.NVProxy, whatever table says (the pool's flags never decide it: runscconfig.Flags drops it, and
// an installer given a hand-written table still keeps it off nodes whose driver did not pass), in Table's bytes.
func ForNode(table []byte, o NodeOptions) ([]byte, error) {
	var doc map[string]map[string]string
	if err := toml.Unmarshal(table, &doc); err != nil {
		return nil, fmt.Errorf("reading the pool's runsc flags table: %w", err)
	}
	flags := doc[TableName]
	if flags == nil {
		flags = map[string]string{}
	}
	delete(flags, nvproxyFlag)
	if o.NVProxy {
		flags[nvproxyFlag] = "true"
	}
	return Table(flags), nil
}

// NVProxy is a pool's GPU decision, the one name it has from the providerConfig to the node (configFlags.nvproxy,
// render.NodeConfig.NVProxy, the installation chart's nvproxy value, the installer's --nvproxy-preflight-image and
// --nvproxy-preflight-binary): whether the pool's nodes turn nvproxy on when their driver passes the GPU
// pre-flight. Yes, unless the pool's configFlags say nvproxy: "false" (the one meaning the flag keeps: a pool that
// wants no GPU in gVisor); `nvproxy: "true"`, which Shoots written for the field's extension set, asks for what
// every pool gets. DefaultNVProxy is the answer for a pool that does not say.
func NVProxy(pool map[string]string) bool { return pool[nvproxyFlag] != "false" }

// DefaultNVProxy is NVProxy's answer for a pool whose configFlags do not name nvproxy (the installation chart's
// default, held to it by a test).
const DefaultNVProxy = true
