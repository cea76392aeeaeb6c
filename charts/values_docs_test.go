// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yamlv3 "go.yaml.in/yaml/v3"
)

// documentedValues returns the keys of values.yaml as operators see them: a mapping whose keys all carry
// their own comment is descended into (image.tag), any other value is one documented leaf (resources).
// It fails the test for every key without a comment: every value is documented beside its default.
func documentedValues(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var keys []string
	var walk func(prefix string, m *yamlv3.Node)
	walk = func(prefix string, m *yamlv3.Node) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			name := prefix + k.Value
			if v.Kind == yamlv3.MappingNode && len(v.Content) > 0 && allKeysCommented(v) {
				walk(name+".", v)
				continue
			}
			if strings.TrimSpace(k.HeadComment) == "" {
				t.Errorf("%s: value %s has no comment documenting it", path, name)
			}
			keys = append(keys, name)
		}
	}
	walk("", doc.Content[0])
	sort.Strings(keys)
	return keys
}

func allKeysCommented(m *yamlv3.Node) bool {
	for i := 0; i < len(m.Content); i += 2 {
		if strings.TrimSpace(m.Content[i].HeadComment) == "" {
			return false
		}
	}
	return true
}

var readmeRow = regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")

// TestREADMEValuesTable keeps the chart README's values table and values.yaml in sync.
func TestREADMEValuesTable(t *testing.T) {
	values := documentedValues(t, extensionChart+"/values.yaml")
	readme, err := os.ReadFile(extensionChart + "/README.md")
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, m := range readmeRow.FindAllStringSubmatch(string(readme), -1) {
		table = append(table, m[1])
	}
	sort.Strings(table)
	if diff := cmp.Diff(values, table); diff != "" {
		t.Errorf("README.md values table and values.yaml disagree (-values.yaml +README.md):\n%s", diff)
	}
}
