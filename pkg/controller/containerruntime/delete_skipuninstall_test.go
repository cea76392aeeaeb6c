// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// The uninstall is skipped exactly when the shoot's nodes go anyway or are gone.
func TestSkipUninstall(t *testing.T) {
	shoot := func(mutate func(*gardencorev1beta1.Shoot)) *extensionscontroller.Cluster {
		s := shootOf("1.33.4", gardenerfixtures.Worker("pool-a", gardenerfixtures.GVisor(nil)))
		mutate(s)
		return clusterOf(s)
	}
	now := metav1.Now()
	for name, tc := range map[string]struct {
		cluster *extensionscontroller.Cluster
		skip    bool
	}{
		"no cluster":     {nil, false},
		"running shoot":  {shoot(func(*gardencorev1beta1.Shoot) {}), false},
		"shoot deleting": {shoot(func(s *gardencorev1beta1.Shoot) { s.DeletionTimestamp = &now }), true},
		"hibernated": {shoot(func(s *gardencorev1beta1.Shoot) {
			s.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: ptr.To(true)}
			s.Status.IsHibernated = true
		}), true},
		"waking up": {shoot(func(s *gardencorev1beta1.Shoot) {
			s.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: ptr.To(false)}
			s.Status.IsHibernated = true
		}), false},
	} {
		if got := skipUninstall(tc.cluster) != ""; got != tc.skip {
			t.Errorf("%s: skip %v, want %v (%q)", name, got, tc.skip, skipUninstall(tc.cluster))
		}
	}
}
