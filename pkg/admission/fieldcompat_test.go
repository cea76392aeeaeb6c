// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission/admissiontest"
)

// fieldProviderConfigs are the field's providerConfigs, all 13 of pkg/render/fieldcompat_test.go.
func fieldProviderConfigs(t testing.TB) []admissiontest.FieldConfig {
	t.Helper()
	out := admissiontest.FieldProviderConfigs(t)
	if len(out) != 13 {
		t.Fatalf("want the 13 field providerConfigs of pkg/render/fieldcompat_test.go, got %d", len(out))
	}
	return out
}

// TestFieldProviderConfigsAccepted: every field-written providerConfig passes, on create and on an update that
// introduces it.
func TestFieldProviderConfigsAccepted(t *testing.T) {
	for _, c := range fieldProviderConfigs(t) {
		t.Run(c.Name, func(t *testing.T) {
			s := shoot(t, plainWorker("a")+gvisorWorker("gvisor", ""))
			if c.JSON != nil {
				s.Spec.Provider.Workers[1].CRI.ContainerRuntimes[0].ProviderConfig = &runtime.RawExtension{Raw: c.JSON}
			}
			if errs := admission.ValidateShoot(s); len(errs) != 0 {
				t.Errorf("create refused a providerConfig the field uses:\n%s", errs.ToAggregate())
			}
			if errs := admission.ValidateShootUpdate(s, shoot(t, plainWorker("a"))); len(errs) != 0 {
				t.Errorf("update refused a providerConfig the field uses:\n%s", errs.ToAggregate())
			}
		})
	}
}
