package containerruntime

import (
	"testing"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
)

// The gate is rendered only when the operator switched it on and the shoot runs Kubernetes 1.30 or later.
func TestReadinessGateByShootVersion(t *testing.T) {
	for _, tc := range []struct {
		enabled bool
		version string
		want    bool
	}{
		{false, "1.35.0", false},
		{true, "1.35.0", true},
		{true, "1.30.0", true},
		{true, "1.30.14", true},
		{true, "1.29.15", false},
		{true, "1.27.0", false},
		{true, "", false},
		{true, "not-a-version", false},
	} {
		a := &Actuator{readinessGateEnabled: tc.enabled}
		if got := a.readinessGate(logr.Discard(), tc.version); got != tc.want {
			t.Errorf("--readiness-gate=%v, shoot %q: gate %v, want %v", tc.enabled, tc.version, got, tc.want)
		}
	}
}

// The uninstall is skipped exactly when the shoot's nodes go anyway or are gone.
func TestSkipUninstall(t *testing.T) {
	shoot := func(mutate func(*gardencorev1beta1.Shoot)) *extensionscontroller.Cluster {
		s := &gardencorev1beta1.Shoot{}
		mutate(s)
		return &extensionscontroller.Cluster{Shoot: s}
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
