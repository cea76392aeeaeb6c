// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package runscconfig validates the runsc.toml the installation chart passes (ConfigMap
// gvisor-installation-<pool>-runsc, key runsc.toml) before the installer copies it to /etc/containerd/runsc.toml.
//
// containerd-shim-runsc-v1 reads that file at every sandbox start, so a broken file breaks every gVisor pod on the
// node; the installer refuses it instead of copying it. The file holds one table, [runsc_config], whose keys are
// runsc flags and whose values are strings.
package runscconfig

import (
	"fmt"
	"sort"

	"github.com/pelletier/go-toml/v2"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/refusal"
)

// Table is the only table of runsc.toml.
const Table = "runsc_config"

// Empty is written when the installer gets no --runsc-config: the shim needs the file ConfigPath names.
var Empty = []byte("[" + Table + "]\n")

// BinaryName is the key of the installed runsc.toml (the installer writes it, package releases) naming the runsc
// of the release the file belongs to; the chart's input never has it.
const BinaryName = "binary_name"

// Validate checks data, the chart's runsc.toml, and returns the flags it sets, sorted by name.
func Validate(path string, data []byte) ([]string, error) { return validate(path, data, false) }

// ValidateInstalled checks an installed runsc.toml: the chart's table plus BinaryName.
func ValidateInstalled(path string, data []byte) ([]string, error) { return validate(path, data, true) }

func validate(path string, data []byte, installed bool) ([]string, error) {
	fix := "render it from the ContainerRuntime's providerConfig.configFlags (a [runsc_config] table of `flag = \"value\"` lines)"
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, refusal.Wrap(path, "not valid TOML", fix, err)
	}
	for k, v := range doc {
		if _, isString := v.(string); installed && k == BinaryName && isString {
			continue
		}
		if k != Table {
			return nil, refusal.New(path, fmt.Sprintf("unexpected key %q (only [%s] is read by the runsc shim)", k, Table), fix)
		}
	}
	flags, ok := doc[Table].(map[string]any)
	if !ok && doc[Table] != nil {
		return nil, refusal.New(path, Table+" is not a table", fix)
	}
	var names []string
	for k, v := range flags {
		if _, ok := v.(string); !ok {
			return nil, refusal.New(path, fmt.Sprintf("%s.%s is %T; the shim passes flags as strings", Table, k, v), fmt.Sprintf(`quote the value: %s = "%v"`, k, v))
		}
		names = append(names, k)
	}
	sort.Strings(names)
	return names, nil
}
