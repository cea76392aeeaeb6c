// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MetricServerFlag is runsc's flag that makes a sandbox export its metrics. The extension sets it in the pool's
// runsc.toml when the pool has sandbox metrics; configFlags may not (it must equal the node's metric server's
// address, which the extension owns).
const MetricServerFlag = "metric-server"

// sandboxMetricsExample is the fix every sandboxMetrics error suggests.
const sandboxMetricsExample = "for example sandboxMetrics: {enabled: true}, or leave sandboxMetrics out for the landscape's default"

// decodeSandboxMetrics reads the sandboxMetrics object strictly: exactly the boolean enabled.
func decodeSandboxMetrics(v any, p *field.Path) (*SandboxMetrics, field.ErrorList) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, field.ErrorList{field.Invalid(p, v, "must be an object with the field enabled, "+sandboxMetricsExample)}
	}
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != "enabled" {
			errs = append(errs, field.Forbidden(p.Child(k), fmt.Sprintf("unknown field %q; the only field of sandboxMetrics is enabled, %s", k, sandboxMetricsExample)))
		}
	}
	raw, set := m["enabled"]
	enabled, isBool := raw.(bool)
	switch {
	case !set:
		errs = append(errs, field.Required(p.Child("enabled"), "true or false, "+sandboxMetricsExample))
	case !isBool:
		errs = append(errs, field.Invalid(p.Child("enabled"), raw, "must be a boolean, true or false without quotes, "+sandboxMetricsExample))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return &SandboxMetrics{Enabled: enabled}, nil
}

// SandboxMetricsFor is the one precedence rule of sandbox metrics: the pool's sandboxMetrics.enabled when the
// providerConfig sets it (in either direction), else the landscape's default (the operator's setting).
func SandboxMetricsFor(cfg *GVisorConfiguration, landscapeDefault bool) bool {
	if cfg != nil && cfg.SandboxMetrics != nil {
		return cfg.SandboxMetrics.Enabled
	}
	return landscapeDefault
}
