// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package runscconfig

import (
	"fmt"
	"sort"

	"github.com/pelletier/go-toml/v2"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// Validate checks data, a flags table as Table renders it (the installer's --runsc-config), and returns the flags
// it sets, sorted by name. The installer trusts no input: a broken file would break every gVisor pod on the node.
func Validate(path string, data []byte) ([]string, error) { return validate(path, data, false) }

// ValidateInstalled checks an installed runsc.toml (ForRelease's form): the flags table plus BinaryName.
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
		if k != TableName {
			return nil, refusal.New(path, fmt.Sprintf("unexpected key %q (only [%s] is read by the runsc shim)", k, TableName), fix)
		}
	}
	flags, ok := doc[TableName].(map[string]any)
	if !ok && doc[TableName] != nil {
		return nil, refusal.New(path, TableName+" is not a table", fix)
	}
	var names []string
	for k, v := range flags {
		if _, ok := v.(string); !ok {
			return nil, refusal.New(path, fmt.Sprintf("%s.%s is %T; the shim passes flags as strings", TableName, k, v), fmt.Sprintf(`quote the value: %s = "%v"`, k, v))
		}
		names = append(names, k)
	}
	sort.Strings(names)
	return names, nil
}
