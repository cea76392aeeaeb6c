// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	predicateutils "github.com/gardener/gardener/pkg/controllerutils/predicate"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"
	"github.com/gardener/gardener/pkg/resourcemanager/controller/managedresource"
	resourcemanagerpredicate "github.com/gardener/gardener/pkg/resourcemanager/predicate"
)

// addFilteredManagedResourceController is managedresource.Reconciler's AddToManager (the
// library has no hook for an extra predicate) with apply in front of the ManagedResource and Secret predicates,
// so that the ManagedResources apply rejects are never reconciled.
func addFilteredManagedResourceController(mgr manager.Manager, r *managedresource.Reconciler, apply predicate.Predicate) error {
	r.SourceClient, r.TargetClient = mgr.GetClient(), mgr.GetClient()
	r.TargetScheme, r.TargetRESTMapper = mgr.GetScheme(), mgr.GetRESTMapper()
	r.Clock = clock.RealClock{}
	r.RequeueAfterOnDeletionPending = new(5 * time.Second)
	return builder.
		ControllerManagedBy(mgr).
		Named(managedresource.ControllerName).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: ptr.Deref(r.Config.ConcurrentSyncs, 0),
			ReconciliationTimeout:   r.Config.SyncPeriod.Duration,
		}).
		For(&resourcesv1alpha1.ManagedResource{}, builder.WithPredicates(
			apply,
			r.ClassFilter,
			predicate.Or(
				predicate.GenerationChangedPredicate{},
				resourcemanagerpredicate.HasOperationAnnotation(),
				resourcemanagerpredicate.ConditionStatusChanged(resourcesv1alpha1.ResourcesHealthy, resourcemanagerpredicate.ConditionChangedToUnhealthy),
				resourcemanagerpredicate.NoLongerIgnored(),
				resourcemanagerpredicate.GotMarkedAsIgnored(),
				r.ClassFilter.CleanupCompleted(),
			),
			predicate.Or(
				resourcemanagerpredicate.GotMarkedAsIgnored(),
				resourcemanagerpredicate.NotIgnored(),
				predicateutils.IsDeleting(),
			),
		)).
		Watches(
			&corev1.Secret{},
			handler.EnqueueRequestsFromMapFunc(r.MapSecretToManagedResources(
				apply,
				r.ClassFilter,
				predicate.Or(resourcemanagerpredicate.NotIgnored(), predicateutils.IsDeleting()),
			)),
			builder.WithPredicates(predicateutils.ForEventTypes(predicateutils.Update)),
		).
		Complete(reconcilerutils.OperationAnnotationWrapper(mgr, func() client.Object { return &resourcesv1alpha1.ManagedResource{} }, r))
}
