// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// TestSchemasAreStrict sends values past the typed API straight to the charts: each chart's values.schema.json
// must reject what the chart does not understand, naming the value.
func TestSchemasAreStrict(t *testing.T) {
	images, err := imagevector.ForVersion("v0.0.0-dev")
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(images)
	if err != nil {
		t.Fatal(err)
	}
	valid := func() map[string]any {
		return map[string]any{"workerPool": "a", "binaryPath": "/var/bin/containerruntimes", "image": "example.com/i:v1"}
	}
	tests := []struct {
		name   string
		chart  *parsedChart
		values map[string]any
		want   string
	}{
		{"unknown top-level key", r.installation, merge(valid(), map[string]any{"imageVectorOverwrite": "x"}), "additional properties 'imageVectorOverwrite' not allowed"},
		{"misspelt key", r.runtimeClass, map[string]any{"nodeSelectors": map[string]any{"a": "b"}}, "additional properties 'nodeSelectors' not allowed"},
		// runsc.toml: the shape only. Its flags are v1alpha1.ValidateFlags' (the allowlist), checked before, and the
		// installer's (runscconfig.Validate) on the node.
		{"runscToml not a string", r.installation, merge(valid(), map[string]any{"runscToml": map[string]any{"net-raw": "true"}}), "/runscToml"},
		{"runscToml without its table", r.installation, merge(valid(), map[string]any{"runscToml": "net-raw = \"true\"\n"}), "/runscToml"},
		{"flags given to the chart", r.installation, merge(valid(), map[string]any{"configFlags": map[string]any{"net-raw": "true"}}), "additional properties 'configFlags' not allowed"},
		{"binaryPath with ..", r.installation, merge(valid(), map[string]any{"binaryPath": "/var/../etc"}), "/binaryPath"},
		{"pool name with a dot", r.installation, merge(valid(), map[string]any{"workerPool": "a.b"}), "/workerPool"},
		{"empty image", r.installation, merge(valid(), map[string]any{"image": ""}), "/image"},
		{"unknown resources key", r.installation, merge(valid(), map[string]any{"resources": map[string]any{"request": map[string]any{}}}), "'request' not allowed"},
		{"node selector value not a string", r.runtimeClass, map[string]any{"nodeSelector": map[string]any{"a": true}}, "/nodeSelector/a"},
		{"readinessGate as a string", r.runtimeClass, map[string]any{"readinessGate": "true"}, "/readinessGate"},
		{"readinessGate as an object", r.installation, merge(valid(), map[string]any{"readinessGate": map[string]any{"enabled": true}}), "/readinessGate"},
		{"proveSandbox as a string", r.installation, merge(valid(), map[string]any{"proveSandbox": "false"}), "/proveSandbox"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.render(tt.chart, tt.values)
			if err == nil || !strings.Contains(err.Error(), "values.schema.json") || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("render() error = %v, want a schema error containing %q", err, tt.want)
			}
		})
	}
	if _, err := r.render(r.installation, valid()); err != nil {
		t.Fatalf("minimal valid values: %v", err)
	}
}

func merge(a, b map[string]any) map[string]any {
	for k, v := range b {
		a[k] = v
	}
	return a
}
