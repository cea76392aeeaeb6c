// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"runtime"
	"strings"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission/admissiontest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

func withProviderConfig(t *testing.T, raw []byte) *gardencorev1beta1.Shoot {
	s := shoot(t, gvisorWorker("a", ""))
	s.Spec.Provider.Workers[0].CRI.ContainerRuntimes[0].ProviderConfig = &k8sruntime.RawExtension{Raw: raw}
	return s
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestUpdateCostIsBoundedByTheLimit: judging an update costs memory in proportion to the providerConfig limit, not
// to the request: a providerConfig at the request limit is compared and refused without being parsed, whether the
// update changes it or keeps it.
func TestUpdateCostIsBoundedByTheLimit(t *testing.T) {
	bound := uint64(64 * v1alpha1.MaxProviderConfigBytes) // the limit's parse, its error and the comparison
	for _, tc := range []struct {
		name     string
		old, new []byte
		refused  bool
	}{
		{"oversized config changed", admissiontest.CostlyProviderConfig(admissiontest.RequestLimit, "1"), admissiontest.CostlyProviderConfig(admissiontest.RequestLimit, "2"), true},
		{"oversized config kept", admissiontest.CostlyProviderConfig(admissiontest.RequestLimit, "1"), admissiontest.CostlyProviderConfig(admissiontest.RequestLimit, "1"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldShoot, newShoot := withProviderConfig(t, tc.old), withProviderConfig(t, tc.new)
			var got []string
			cost := allocated(func() { got = messages(admission.ValidateShootUpdate(newShoot, oldShoot)) })
			if refused := len(got) > 0; refused != tc.refused || (refused && !strings.Contains(strings.Join(got, "\n"), "Too long")) {
				t.Errorf("errors %v, want refused=%v for its size", got, tc.refused)
			}
			if cost > bound {
				t.Errorf("ValidateShootUpdate allocated %d KiB for a %d KiB providerConfig, want at most %d KiB (O(limit), not O(request))",
					cost>>10, len(tc.new)>>10, bound>>10)
			}
			t.Logf("%s: %d KiB allocated", tc.name, cost>>10)
		})
	}
}
