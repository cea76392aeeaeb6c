// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1_test

import (
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// TestSandboxMetricsDecode: sandboxMetrics is an object with exactly the boolean enabled; every other shape is
// refused naming the field and the fix.
func TestSandboxMetricsDecode(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		raw := `{"sandboxMetrics":{"enabled":false}}`
		if enabled {
			raw = "sandboxMetrics:\n  enabled: true\n"
		}
		cfg, errs := v1alpha1.Parse([]byte(raw), v1alpha1.ProviderConfigPath)
		if len(errs) > 0 || cfg.SandboxMetrics == nil || cfg.SandboxMetrics.Enabled != enabled {
			t.Errorf("%q: %+v %v, want sandboxMetrics.enabled %v", raw, cfg, errs, enabled)
		}
	}
	refused := []struct{ raw, want string }{
		{`{"sandboxMetrics":true}`, "providerConfig.sandboxMetrics: Invalid value: true: must be an object with the field enabled"},
		{`{"sandboxMetrics":{}}`, "providerConfig.sandboxMetrics.enabled: Required value: true or false"},
		{`{"sandboxMetrics":{"enabled":"true"}}`, `providerConfig.sandboxMetrics.enabled: Invalid value: "true": must be a boolean`},
		{`{"sandboxMetrics":{"enabled":true,"port":9474}}`, `providerConfig.sandboxMetrics.port: Forbidden: unknown field "port"`},
		{`{"configFlags":{"metric-server":"/run/x.sock"}}`, "providerConfig.configFlags[metric-server]: Forbidden: runsc's metric-server flag is set by the extension"},
	}
	for _, c := range refused {
		cfg, errs := v1alpha1.Parse([]byte(c.raw), v1alpha1.ProviderConfigPath)
		got := errs.ToAggregate()
		if cfg != nil || got == nil || !strings.Contains(got.Error(), c.want) || !strings.Contains(got.Error(), "sandboxMetrics: {enabled: true}") {
			t.Errorf("%s: got %v, want an error containing %q and the fix", c.raw, got, c.want)
		}
	}
}

// TestSandboxMetricsPrecedence: the pool's choice wins in both directions; without one the landscape's default.
func TestSandboxMetricsPrecedence(t *testing.T) {
	on, off := &v1alpha1.SandboxMetrics{Enabled: true}, &v1alpha1.SandboxMetrics{Enabled: false}
	cases := []struct {
		cfg       *v1alpha1.GVisorConfiguration
		landscape bool
		want      bool
	}{
		{nil, false, false},
		{nil, true, true},
		{&v1alpha1.GVisorConfiguration{}, true, true},
		{&v1alpha1.GVisorConfiguration{SandboxMetrics: on}, false, true},
		{&v1alpha1.GVisorConfiguration{SandboxMetrics: off}, true, false},
	}
	for _, c := range cases {
		if got := v1alpha1.SandboxMetricsFor(c.cfg, c.landscape); got != c.want {
			t.Errorf("SandboxMetricsFor(%+v, %v) = %v, want %v", c.cfg, c.landscape, got, c.want)
		}
	}
}
