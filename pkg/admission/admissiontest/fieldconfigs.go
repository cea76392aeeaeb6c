// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package admissiontest holds the admission's test inputs that more than one test package reads: the
// providerConfigs the field's extension documents (pkg/render/fieldcompat_test.go's inputs), which the
// validator's unit tests and the real gardener-apiserver test (test/admission) must both accept, and the costliest
// providerConfig JSON (CostlyProviderConfig) at gardener-apiserver's RequestLimit that the cost tests of both send.
package admissiontest

import (
	_ "embed"
	"encoding/json"
	"testing"

	"sigs.k8s.io/yaml"
)

//go:embed field-provider-configs.yaml
var fieldProviderConfigsYAML []byte

// FieldConfig is one providerConfig from the field; JSON nil means none.
type FieldConfig struct {
	Name string
	JSON []byte
}

// FieldProviderConfigs decodes field-provider-configs.yaml strictly.
func FieldProviderConfigs(t testing.TB) []FieldConfig {
	t.Helper()
	var raw []struct {
		Name           string          `json:"name"`
		ProviderConfig json.RawMessage `json:"providerConfig"`
	}
	if err := yaml.UnmarshalStrict(fieldProviderConfigsYAML, &raw); err != nil {
		t.Fatalf("field-provider-configs.yaml: %v", err)
	}
	out := make([]FieldConfig, 0, len(raw))
	for _, r := range raw {
		c := FieldConfig{Name: r.Name}
		if len(r.ProviderConfig) > 0 && string(r.ProviderConfig) != "null" {
			c.JSON = r.ProviderConfig
		}
		out = append(out, c)
	}
	return out
}
