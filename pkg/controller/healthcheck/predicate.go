// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// reconcileStarted is the health-check controller's event filter: a ContainerRuntime is checked once the
// ContainerRuntime controller has started its first operation (status.lastOperation is set), and from then on at
// every spec change (the library's own filter, GenerationChangedPredicate) and every sync period.
//
// The library's default checks a ContainerRuntime the moment gardenlet creates it. That first check can only say
// that nothing is deployed yet (the ManagedResources are not there), which gardenlet would show as an unhealthy
// shoot for a pool that is merely new, and its status write races with the ContainerRuntime controller adding
// its finalizer: the finalizer patch carries the resourceVersion it read, loses with a conflict, and the whole
// first reconcile waits for a retry. After a restart every ContainerRuntime that was reconciled before enters
// through a create event with its lastOperation, and is checked at once as before.
func reconcileStarted() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return started(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			if !started(e.ObjectNew) {
				return false
			}
			return !started(e.ObjectOld) || e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration()
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return true },
		GenericFunc: func(e event.GenericEvent) bool { return started(e.Object) },
	}
}

// started: the object is a ContainerRuntime whose controller has recorded an operation.
func started(obj client.Object) bool {
	cr, ok := obj.(*extensionsv1alpha1.ContainerRuntime)
	return ok && cr.Status.LastOperation != nil
}
