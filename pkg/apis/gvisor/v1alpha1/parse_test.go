// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// TestParse: one decode and one validation, every error at once (decoding errors first, then the allowlist's on
// whatever could be read), rooted at the path the caller gives; no configuration comes with errors.
func TestParse(t *testing.T) {
	root := field.NewPath("spec", "providerConfig")
	for _, tc := range []struct {
		name string
		raw  string
		want []string
	}{
		{"valid", `{"configFlags":{"net-raw":"true"},"testImageTag":"v1"}`, nil},
		{"unknown field and a flag outside the allowlist", `{"configFlag":{},"configFlags":{"network":"host"}}`, []string{
			`spec.providerConfig.configFlag: Forbidden: unknown field "configFlag"; the fields of a GVisorConfiguration are apiVersion, kind, configFlags, sandboxMetrics, testImageTag`,
			`spec.providerConfig.configFlags[network]: Invalid value: "host": unknown or not allowed runsc flag "network"; allowed flags: ` +
				`cpu-num-from-quota, debug, debug-log, directfs, file-access, net-raw, nvproxy, nvproxy-allowed-driver-capabilities, overlay2, panic-signal, platform, strace, watchdog-action`,
		}},
		{"non-string testImageTag, the flags still checked", `{"testImageTag":5,"configFlags":{"platform":"kvm2"}}`, []string{
			`spec.providerConfig.testImageTag: Invalid value: 5: must be a string (an image tag)`,
			`spec.providerConfig.configFlags[platform]: Unsupported value: "kvm2": supported values: "kvm", "ptrace", "systrap"`,
		}},
		{"configFlags not an object", `{"configFlags":["net-raw"]}`, []string{
			`spec.providerConfig.configFlags: Invalid value: ["net-raw"]: must be an object: runsc flag name -> string value, for example net-raw: "true"`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, errs := v1alpha1.Parse([]byte(tc.raw), root)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if (cfg == nil) != (len(tc.want) > 0) {
				t.Errorf("configuration %+v with %d errors", cfg, len(errs))
			}
		})
	}
}
