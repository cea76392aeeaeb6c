// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
)

// A Delete waits for two things, both reported on a ManagedResource: gardener-resource-manager rolling the
// uninstall out (its status) and removing the objects (the ManagedResource going away). The watch below wakes the
// waiting ContainerRuntime on exactly those events, so Delete needs no short poll (delete_requeue.go has only a long
// safety requeue and the time-based steps).

// runtimesWaitingFor maps a ManagedResource event to the ContainerRuntimes of its namespace whose Delete may wait
// on it: for the pool's extension-runtime-gvisor-installation-<pool>, the deleting gvisor ContainerRuntime of that
// pool; for the shoot-wide extension-runtime-gvisor, every deleting gvisor ContainerRuntime of the namespace. Other
// ManagedResources, and ContainerRuntimes not being deleted (whose reconciles gardenlet triggers), map to nothing.
// The list comes from the informer cache (the controller watches ContainerRuntimes anyway), per namespace, and
// only names are taken from it.
func runtimesWaitingFor(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		pool, isPool := strings.CutPrefix(obj.GetName(), installationManagedResourcePrefix)
		if !isPool && obj.GetName() != ManagedResourceName {
			return nil
		}
		list := &extensionsv1alpha1.ContainerRuntimeList{}
		// Read-only, so without the cache's deep copy: an event would otherwise copy every ContainerRuntime of
		// the shoot, a cost per pool that grows with the shoot's pools.
		if err := c.List(ctx, list, client.InNamespace(obj.GetNamespace()), client.UnsafeDisableDeepCopy); err != nil {
			// Only a wake-up is lost: the safety requeue still comes.
			logf.FromContext(ctx).Error(err, "Listing ContainerRuntimes for a ManagedResource event", "namespace", obj.GetNamespace())
			return nil
		}
		var requests []reconcile.Request
		for _, cr := range list.Items {
			if cr.Spec.Type != Type || cr.DeletionTimestamp == nil || (isPool && cr.Spec.WorkerPool.Name != pool) {
				continue
			}
			requests = append(requests, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cr.Namespace, Name: cr.Name}})
		}
		return requests
	}
}

// managedResourceChanged passes what can change a waiting Delete's verdict or report: status changes while the
// ManagedResource is not being deleted (gardener-resource-manager rolling the uninstall out), and its removal.
// Left out, because the Delete would find nothing new:
//   - status updates once it is being deleted: only its removal matters then;
//   - status updates between two of gardener-resource-manager's own steps (applying, checks pending: catchingUp)
//     and its progress updates while the objects roll out (ResourcesProgressing True: rollingOut), however many
//     nodes the DaemonSet rolls to: the Delete reports all of them with one message (inFlight);
//   - spec changes without a status change: only the Delete itself writes the spec while it waits;
//   - creations (also every object at the start, when the ContainerRuntimes' own events start their Deletes
//     anyway), label changes and resyncs.
func managedResourceChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldMR, ok1 := e.ObjectOld.(*resourcesv1alpha1.ManagedResource)
			newMR, ok2 := e.ObjectNew.(*resourcesv1alpha1.ManagedResource)
			if !ok1 || !ok2 {
				return true
			}
			if newMR.DeletionTimestamp != nil || (inFlight(oldMR) && inFlight(newMR)) {
				return false
			}
			return !apiequality.Semantic.DeepEqual(oldMR.Status, newMR.Status)
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// skipOwnStatusWritesWhileDeleting drops the update events of a deleting ContainerRuntime that change only its
// status. The library's predicates admit every update of a deleting object, so each status write of a Delete
// (this controller is the only writer of the status while deleting) would trigger one more Delete pass that could
// find nothing new. Changes of metadata (annotations such as gardenlet's operation, finalizers) and of the
// spec still pass.
func skipOwnStatusWritesWhileDeleting() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldCR, ok1 := e.ObjectOld.(*extensionsv1alpha1.ContainerRuntime)
			newCR, ok2 := e.ObjectNew.(*extensionsv1alpha1.ContainerRuntime)
			if !ok1 || !ok2 || oldCR.DeletionTimestamp == nil || newCR.DeletionTimestamp == nil {
				return true
			}
			return oldCR.Generation != newCR.Generation ||
				!apiequality.Semantic.DeepEqual(oldCR.Annotations, newCR.Annotations) ||
				!apiequality.Semantic.DeepEqual(oldCR.Labels, newCR.Labels) ||
				!apiequality.Semantic.DeepEqual(oldCR.Finalizers, newCR.Finalizers)
		},
	}
}
