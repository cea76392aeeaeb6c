// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/event"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// TestReconcileStarted: gardenlet's new ContainerRuntime is not checked until the ContainerRuntime controller has
// recorded its first operation; the status write that records it starts the checks; after that only spec changes
// (and the sync period) do, as with the library's own filter; a ContainerRuntime seen at a restart with an
// operation recorded is checked at once.
func TestReconcileStarted(t *testing.T) {
	p := reconcileStarted()
	fresh := gardenerfixtures.ContainerRuntime("shoot--p--s", "a", nil, v1beta1constants.GardenerOperationReconcile)
	fresh.Generation = 1
	processing := fresh.DeepCopy()
	processing.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStateProcessing}
	succeeded := processing.DeepCopy()
	succeeded.Status.LastOperation.State = gardencorev1beta1.LastOperationStateSucceeded
	changedSpec := succeeded.DeepCopy()
	changedSpec.Generation = 2
	otherKind := &extensionsv1alpha1.Worker{}

	for _, tc := range []struct {
		name string
		got  bool
		want bool
	}{
		{"gardenlet creates it", p.Create(event.CreateEvent{Object: fresh}), false},
		{"the library records Processing", p.Update(event.UpdateEvent{ObjectOld: fresh, ObjectNew: processing}), true},
		{"a status write after that", p.Update(event.UpdateEvent{ObjectOld: processing, ObjectNew: succeeded}), false},
		{"a spec change", p.Update(event.UpdateEvent{ObjectOld: succeeded, ObjectNew: changedSpec}), true},
		{"a spec change before the first operation", p.Update(event.UpdateEvent{ObjectOld: fresh, ObjectNew: func() *extensionsv1alpha1.ContainerRuntime {
			c := fresh.DeepCopy()
			c.Generation = 2
			return c
		}()}), false},
		{"seen at a restart", p.Create(event.CreateEvent{Object: succeeded}), true},
		{"the Cluster mapper's generic event before the first operation", p.Generic(event.GenericEvent{Object: fresh}), false},
		{"the Cluster mapper's generic event after it", p.Generic(event.GenericEvent{Object: succeeded}), true},
		{"deleted", p.Delete(event.DeleteEvent{Object: succeeded}), true},
		{"not a ContainerRuntime", p.Create(event.CreateEvent{Object: otherKind}), false},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: passes %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}
