// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig

import (
	"reflect"

	"github.com/pelletier/go-toml/v2"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// criRuntimePluginIDs are the plugin IDs under which some config version keeps the CRI runtimes (1: cri, 2:
// io.containerd.grpc.v1.cri, 3 and 4: io.containerd.cri.v1.runtime).
var criRuntimePluginIDs = []string{"cri", "io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime"}

func runtimesPathFor(id string) []string { return []string{"plugins", id, "containerd", "runtimes"} }

func runscPathFor(id string) []string { return append(runtimesPathFor(id), nodecontract.RuntimeName) }

// ForeignRunsc returns the plugin IDs, other than the one of the file's version, that hold a runsc runtime. Such a
// registration is never in effect; the field's extension wrote it (`[plugins.cri.containerd.runtimes.runsc]`
// whenever its grep did not see `version = 2`, and `plugins."io.containerd.grpc.v1.cri"` options whatever the
// version), and `plugins.cri` in a version 2 file makes containerd 1.x refuse to start
// (`invalid plugin key URI "cri" expect io.containerd.x.vx`).
func (d *Document) ForeignRunsc() []string {
	var out []string
	for _, id := range criRuntimePluginIDs {
		if id == d.PluginID {
			continue
		}
		if rt, err := lookupTable(d.Path, d.Tree, runtimesPathFor(id)...); err == nil && rt != nil && rt[nodecontract.RuntimeName] != nil {
			out = append(out, id)
		}
	}
	return out
}

// HasAnyRunsc reports whether the file registers runsc under any CRI plugin ID.
func (d *Document) HasAnyRunsc() bool { return d.Runsc() != nil || len(d.ForeignRunsc()) > 0 }

// removeRunscAt deletes runsc under plugin id and the tables that held nothing else.
func removeRunscAt(tree map[string]any, id string) {
	rt, err := lookupTable("", tree, runtimesPathFor(id)...)
	if err != nil || rt == nil || rt[nodecontract.RuntimeName] == nil {
		return
	}
	delete(rt, nodecontract.RuntimeName)
	pruneEmpty(tree, runtimesPathFor(id))
}

// pruneEmpty removes the tables along path, deepest first, as long as they are empty. An empty `runtimes` table
// left behind would not be harmless: containerd 1.x would decode it into an empty runtimes map and lose runc.
func pruneEmpty(tree map[string]any, path []string) {
	for n := len(path); n > 0; n-- {
		parent, err := lookupTable("", tree, path[:n-1]...)
		if err != nil || parent == nil {
			return
		}
		m, ok := parent[path[n-1]].(map[string]any)
		if !ok || len(m) > 0 {
			return
		}
		delete(parent, path[n-1])
	}
}

// sameSettings reports whether content decodes to expected, up to empty tables on the runtimes paths (a table
// header the operator wrote stays in the file even when what we cut out was all it held).
func sameSettings(content []byte, expected map[string]any) bool {
	got := map[string]any{}
	if err := toml.Unmarshal(content, &got); err != nil {
		return false
	}
	want := deepCopy(expected)
	for _, id := range criRuntimePluginIDs {
		pruneEmpty(got, runtimesPathFor(id))
		pruneEmpty(want, runtimesPathFor(id))
	}
	return reflect.DeepEqual(got, want)
}
