// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionscontainerruntimecontroller "github.com/gardener/gardener/extensions/pkg/controller/containerruntime"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

const testNamespace = "shoot--p--s"

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := extensionscontroller.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

// runtimeOf is gardenlet's ContainerRuntime of pool in testNamespace, with the library's finalizer, being deleted
// if deleting.
func runtimeOf(pool string, deleting bool) *extensionsv1alpha1.ContainerRuntime {
	cr := gardenerfixtures.ContainerRuntime(testNamespace, pool, nil, "")
	cr.Finalizers = []string{extensionscontainerruntimecontroller.FinalizerName}
	if deleting {
		cr.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	}
	return cr
}

// TestRuntimesWaitingFor: a pool's ManagedResource wakes that pool's deleting ContainerRuntime only, the shoot-wide
// one every deleting gvisor ContainerRuntime of the namespace; ContainerRuntimes not being deleted, of another
// type, and other ManagedResources wake nothing.
func TestRuntimesWaitingFor(t *testing.T) {
	other := runtimeOf("d", true)
	other.Name, other.Spec.Type = "other-d", "other"
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).
		WithObjects(runtimeOf("a", true), runtimeOf("b", true), runtimeOf("c", false), other).Build()
	mapper := runtimesWaitingFor(c)
	woken := func(name string) []string {
		var names []string
		for _, r := range mapper(context.Background(), &resourcesv1alpha1.ManagedResource{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name}}) {
			names = append(names, r.Name)
		}
		slices.Sort(names)
		return names
	}
	a, b := runtimeOf("a", true).Name, runtimeOf("b", true).Name
	for mr, want := range map[string][]string{
		InstallationManagedResourceName("a"): {a},
		InstallationManagedResourceName("c"): nil,
		InstallationManagedResourceName("d"): nil,
		ManagedResourceName:                  {a, b},
		"extension-shoot-something-else":     nil,
	} {
		if got := woken(mr); !slices.Equal(got, want) {
			t.Errorf("ManagedResource %s wakes %v, want %v", mr, got, want)
		}
	}
}

// TestManagedResourceChanged: a status change that can change the Delete's verdict wakes it, and so does the
// ManagedResource's removal; gardener-resource-manager's steps in between, the Delete's own spec write, status
// updates while it is being deleted, label changes and creations do not.
func TestManagedResourceChanged(t *testing.T) {
	p := managedResourceChanged()
	// conditions are Applied and Healthy s, Progressing the opposite (done when s is True).
	conditions := func(s gardencorev1beta1.ConditionStatus) []gardencorev1beta1.Condition {
		progressing := s
		switch s {
		case gardencorev1beta1.ConditionTrue:
			progressing = gardencorev1beta1.ConditionFalse
		case gardencorev1beta1.ConditionFalse:
			progressing = gardencorev1beta1.ConditionTrue
		}
		return []gardencorev1beta1.Condition{
			{Type: resourcesv1alpha1.ResourcesApplied, Status: s},
			{Type: resourcesv1alpha1.ResourcesHealthy, Status: s},
			{Type: resourcesv1alpha1.ResourcesProgressing, Status: progressing},
		}
	}
	applied := &resourcesv1alpha1.ManagedResource{ObjectMeta: metav1.ObjectMeta{Name: "m", Generation: 2, ResourceVersion: "1"},
		Status: resourcesv1alpha1.ManagedResourceStatus{ObservedGeneration: 2, Conditions: conditions(gardencorev1beta1.ConditionTrue)}}
	update := func(old *resourcesv1alpha1.ManagedResource, change func(*resourcesv1alpha1.ManagedResource)) bool {
		n := old.DeepCopy()
		n.ResourceVersion = "2"
		change(n)
		return p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: n})
	}
	if !update(applied, func(n *resourcesv1alpha1.ManagedResource) { n.Status.Conditions[1].Message = "1 of 3 nodes" }) {
		t.Error("a status change must wake the Delete")
	}
	rolling := applied.DeepCopy()
	rolling.Status.Conditions[1].Status = gardencorev1beta1.ConditionFalse // ResourcesHealthy
	rolling.Status.Conditions[2].Status = gardencorev1beta1.ConditionTrue  // ResourcesProgressing
	rolling.Status.Conditions[2].Message = "DaemonSet kube-system/gvisor-installation-a is progressing: 1 of 3 updated"
	if update(rolling, func(n *resourcesv1alpha1.ManagedResource) {
		n.Status.Conditions[2].Message = "DaemonSet kube-system/gvisor-installation-a is progressing: 2 of 3 updated"
	}) {
		t.Error("progress while the objects roll out wakes nothing: the Delete reports it with one message")
	}
	if !update(rolling, func(n *resourcesv1alpha1.ManagedResource) {
		n.Status.Conditions = conditions(gardencorev1beta1.ConditionTrue)
	}) {
		t.Error("the rollout's end must wake the Delete")
	}
	if update(applied, func(n *resourcesv1alpha1.ManagedResource) { n.Generation = 3 }) {
		t.Error("the Delete's own spec write (no status change) wakes nothing")
	}
	pending := applied.DeepCopy()
	pending.Generation = 3
	if update(pending, func(n *resourcesv1alpha1.ManagedResource) {
		n.Status.Conditions = conditions(gardencorev1beta1.ConditionUnknown)
	}) {
		t.Error("gardener-resource-manager's steps while it catches up wake nothing")
	}
	if update(pending, func(n *resourcesv1alpha1.ManagedResource) {
		n.Status.ObservedGeneration = 3
		n.Status.Conditions = rolling.Status.Conditions
	}) {
		t.Error("gardener-resource-manager's checks done and the rollout started wakes nothing: the Delete's message is the same")
	}
	if !update(pending, func(n *resourcesv1alpha1.ManagedResource) {
		n.Status.ObservedGeneration = 3
		n.Status.Conditions = conditions(gardencorev1beta1.ConditionTrue)
	}) {
		t.Error("gardener-resource-manager done with the new generation must wake the Delete")
	}
	if update(applied, func(n *resourcesv1alpha1.ManagedResource) {
		n.DeletionTimestamp = &metav1.Time{Time: time.Now()}
		n.Status.Conditions = conditions(gardencorev1beta1.ConditionFalse)
	}) {
		t.Error("status updates while it is being deleted wake nothing: only its removal matters")
	}
	if update(applied, func(n *resourcesv1alpha1.ManagedResource) { n.Labels = map[string]string{"x": "y"} }) {
		t.Error("a label change is nothing a Delete waits for")
	}
	if p.Create(event.CreateEvent{Object: applied}) {
		t.Error("a creation is nothing a Delete waits for")
	}
	if !p.Delete(event.DeleteEvent{Object: applied}) {
		t.Error("the ManagedResource going away must wake the Delete")
	}
}

// TestSkipOwnStatusWritesWhileDeleting: a status-only update of a deleting ContainerRuntime (the Delete's own write)
// does not trigger another pass; a metadata change does, and so does anything of a ContainerRuntime not being
// deleted (the library's predicates decide those).
func TestSkipOwnStatusWritesWhileDeleting(t *testing.T) {
	p := skipOwnStatusWritesWhileDeleting()
	update := func(old client.Object, change func(*extensionsv1alpha1.ContainerRuntime)) bool {
		n := old.DeepCopyObject().(*extensionsv1alpha1.ContainerRuntime)
		change(n)
		return p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: n})
	}
	status := func(n *extensionsv1alpha1.ContainerRuntime) {
		n.Status.LastError = &gardencorev1beta1.LastError{Description: "waiting"}
	}
	if update(runtimeOf("a", true), status) {
		t.Error("a deleting ContainerRuntime's status write must not trigger a pass")
	}
	if !update(runtimeOf("a", true), func(n *extensionsv1alpha1.ContainerRuntime) {
		n.Annotations = map[string]string{"gardener.cloud/operation": "migrate"}
	}) {
		t.Error("an annotation change of a deleting ContainerRuntime must pass")
	}
	if !update(runtimeOf("a", false), status) {
		t.Error("updates of ContainerRuntimes not being deleted are the library's predicates' to judge")
	}
}
