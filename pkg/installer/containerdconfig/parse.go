// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/pelletier/go-toml/v2"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// Document is a parsed containerd configuration file.
type Document struct {
	// Path names the file in messages (a node path).
	Path string
	// Raw is the file content as read.
	Raw []byte
	// Tree is the decoded TOML document.
	Tree map[string]any
	// Version is the config version: the `version` key, 1 when absent.
	Version int64
	// PluginID is the CRI plugin ID for Version.
	PluginID string
	// Imports is the `imports` list as written (node paths, possibly relative to the file, possibly globs).
	Imports []string
	// CRLF is true when the file uses Windows line endings; our additions follow the file's style.
	CRLF bool
}

// Parse decodes a containerd configuration file and refuses what the installer must not guess about.
func Parse(path string, data []byte) (*Document, error) {
	tree := map[string]any{}
	if err := toml.Unmarshal(data, &tree); err != nil {
		return nil, refusal.Wrap(path, "not valid TOML", "repair the file (containerd itself cannot read it either), e.g. compare with `containerd config default`", err)
	}
	d := &Document{Path: path, Raw: data, Tree: tree, Version: 1, CRLF: bytes.Contains(data, []byte("\r\n"))}
	if v, ok := tree["version"]; ok {
		n, isInt := v.(int64)
		if !isInt {
			return nil, refusal.New(path, fmt.Sprintf("`version` is %v (%T), not an integer", v, v), "set `version` to the integer your containerd expects (1.x: 2, 2.0/2.2: 3, 2.4: 4)")
		}
		d.Version = n
	}
	id, err := PluginID(d.Version)
	if err != nil {
		return nil, refusal.Wrap(path, "config version not supported", "use version 2 (containerd 1.6/1.7), 3 (2.0/2.2) or 4 (2.4); `containerd config migrate` converts older files", err)
	}
	d.PluginID = id
	if err := d.readImports(); err != nil {
		return nil, err
	}
	if err := d.checkCRIEnabled(); err != nil {
		return nil, err
	}
	// Make sure every table on the path to the runtimes is a table (or absent), so edits cannot clash with it.
	if _, err := d.lookupTable(append(d.runtimesPath(), nodecontract.RuntimeName, "options")...); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Document) readImports() error {
	raw, ok := d.Tree["imports"]
	if !ok {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		return refusal.New(d.Path, fmt.Sprintf("`imports` is %T, not a list of paths", raw), `write imports as a list, e.g. imports = ["/etc/containerd/conf.d/*.toml"]`)
	}
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			return refusal.New(d.Path, fmt.Sprintf("`imports` contains %v (%T), not a path", item, item), "list only path strings in imports")
		}
		d.Imports = append(d.Imports, s)
	}
	return nil
}

func (d *Document) checkCRIEnabled() error {
	raw, ok := d.Tree["disabled_plugins"]
	if !ok {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		return refusal.New(d.Path, fmt.Sprintf("`disabled_plugins` is %T, not a list", raw), "write disabled_plugins as a list of plugin IDs")
	}
	for _, item := range list {
		if s, ok := item.(string); ok && slices.Contains(criPluginNames, s) {
			return refusal.New(d.Path, fmt.Sprintf("the CRI plugin is disabled (disabled_plugins contains %q), so Kubernetes cannot use containerd or runsc on this node", s),
				"remove it from disabled_plugins (Gardener worker pools need CRI enabled) or do not select gVisor for this worker pool")
		}
	}
	return nil
}

// runtimesPath is the key path of the CRI runtimes table.
func (d *Document) runtimesPath() []string {
	return []string{"plugins", d.PluginID, "containerd", "runtimes"}
}

// lookupTable walks path in the tree: nil (no error) when some part is absent, a refusal when a part is not a table.
func (d *Document) lookupTable(path ...string) (map[string]any, error) {
	return lookupTable(d.Path, d.Tree, path...)
}

func lookupTable(file string, tree map[string]any, path ...string) (map[string]any, error) {
	cur := tree
	for i, k := range path {
		v, ok := cur[k]
		if !ok {
			return nil, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, refusal.New(file, fmt.Sprintf("%s is %T, not a table", dottedKey(path[:i+1]), v),
				"make it a table as `containerd config default` shows")
		}
		cur = m
	}
	return cur, nil
}

// Runsc returns the runsc runtime table, nil when the file has none under the right plugin ID.
func (d *Document) Runsc() map[string]any {
	rt, _ := d.lookupTable(d.runtimesPath()...)
	if rt == nil {
		return nil
	}
	m, _ := rt[nodecontract.RuntimeName].(map[string]any)
	return m
}
