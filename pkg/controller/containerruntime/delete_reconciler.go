// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionscontainerruntimecontroller "github.com/gardener/gardener/extensions/pkg/controller/containerruntime"
	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/controllerutils"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"
)

// reconciler is the extension library's ContainerRuntime reconciler (NewReconciler) for every operation but an
// ordinary Delete, which it runs itself with the library's semantics (lastOperation Delete Processing, the
// Actuator's Delete, lastOperation Succeeded, finalizer removed; TestDeleteMatchesTheLibrary holds the two equal and
// fails when the library's changes) and two differences, because a Delete is woken by every event of its
// ManagedResources and the library writes lastOperation twice on every pass (Processing, then Error with the cause)
// and logs the cause as an error:
//
//   - a Delete that waits (the Actuator returns a RequeueAfterError) writes the status only when what it reports
//     changed, in one patch with the uninstall's conditions (Actuator.deleteDeferringStatus), and logs the wait
//     without a stack trace;
//   - Processing is written with the first pass's outcome, not before it.
//
// ForceDelete, Migrate, Restore, a failed shoot, a migrated object and a Delete with gardenlet's operation
// annotation go to the library unchanged.
type reconciler struct {
	library  reconcile.Reconciler
	client   client.Client
	actuator deferringActuator
	status   extensionscontroller.StatusUpdaterCustom
}

// deferringActuator is the library's Actuator with a Delete that leaves writing the status to its caller
// (Actuator.deleteDeferringStatus).
type deferringActuator interface {
	extensionscontainerruntimecontroller.Actuator
	deleteDeferringStatus(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error
}

func newReconciler(mgr manager.Manager, actuator deferringActuator) reconcile.Reconciler {
	return &reconciler{
		library:  extensionscontainerruntimecontroller.NewReconciler(mgr, actuator),
		client:   mgr.GetClient(),
		actuator: actuator,
		status:   extensionscontroller.NewStatusUpdater(mgr.GetClient()),
	}
}

// deleteDescription and deleteErrorDescription are the library's words, so lastOperation and lastError read the
// same as before.
const (
	deleteDescription      = "Deleting the ContainerRuntime"
	deleteErrorDescription = "Error deleting ContainerRuntime"
)

func (r *reconciler) Reconcile(ctx context.Context, request reconcile.Request) (reconcile.Result, error) {
	cr := &extensionsv1alpha1.ContainerRuntime{}
	if err := r.client.Get(ctx, request.NamespacedName, cr); err != nil || !ordinaryDelete(cr) {
		return r.library.Reconcile(ctx, request) // not found, read errors and everything else: as the library does
	}
	cluster, err := extensionscontroller.GetCluster(ctx, r.client, cr.Namespace)
	if err != nil {
		return reconcile.Result{}, err
	}
	if extensionscontroller.IsFailed(cluster) || (cluster != nil && v1beta1helper.ShootNeedsForceDeletion(cluster.Shoot)) {
		return r.library.Reconcile(ctx, request)
	}
	return r.delete(ctx, logf.FromContext(ctx), cr, cluster)
}

// ordinaryDelete: cr is being deleted, carries the library's finalizer, no operation annotation (migrate, restore,
// reconcile: the library handles and removes them) and is not migrated away (the library skips it).
func ordinaryDelete(cr *extensionsv1alpha1.ContainerRuntime) bool {
	return cr.DeletionTimestamp != nil && controllerutil.ContainsFinalizer(cr, extensionscontainerruntimecontroller.FinalizerName) &&
		cr.Annotations[v1beta1constants.GardenerOperation] == "" && !extensionscontroller.IsMigrated(cr)
}

func (r *reconciler) delete(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) (reconcile.Result, error) {
	before := cr.DeepCopy()
	if !deleting(cr) {
		// The library writes this before it calls the Actuator. Here it goes with the pass's outcome (the wait,
		// the success or the error): one write less per pool, and a Delete pass does not wait for anything.
		log.Info(deleteDescription)
		cr.Status.LastOperation = extensionscontroller.LastOperation(gardencorev1beta1.LastOperationTypeDelete, gardencorev1beta1.LastOperationStateProcessing, 1, deleteDescription)
	}
	err := r.actuator.deleteDeferringStatus(ctx, log, cr, cluster)
	var wait *reconcilerutils.RequeueAfterError
	if errors.As(err, &wait) {
		return reconcile.Result{RequeueAfter: wait.RequeueAfter}, r.reportWait(ctx, log, before, cr, wait)
	}
	if err != nil {
		_ = r.status.ErrorCustom(ctx, log, cr, err, gardencorev1beta1.LastOperationTypeDelete, deleteErrorDescription, reported(before, cr))
		return reconcile.Result{}, err
	}
	if err := r.status.SuccessCustom(ctx, log, cr, gardencorev1beta1.LastOperationTypeDelete, "Successfully deleted ContainerRuntime", reported(before, cr)); err != nil {
		return reconcile.Result{}, err
	}
	log.Info("Removing finalizer")
	if err := controllerutils.RemoveFinalizers(ctx, r.client, cr, extensionscontainerruntimecontroller.FinalizerName); err != nil {
		return reconcile.Result{}, fmt.Errorf("failed to remove finalizer: %w", err)
	}
	return reconcile.Result{}, nil
}

// reported resets cr's status to before's, the status as read, so that the status updater's patch carries everything
// this pass changed (the Processing lastOperation set in memory only among it), and returns the updater that puts
// back what the Actuator reported meanwhile (the uninstall's conditions).
func reported(before, cr *extensionsv1alpha1.ContainerRuntime) extensionscontroller.UpdaterFunc {
	conditions := cr.Status.Conditions
	cr.Status = *before.Status.DeepCopy()
	return func(s extensionsv1alpha1.Status) error {
		s.SetConditions(conditions)
		return nil
	}
}

// deleting: the status already says a Delete is under way (Processing, or Error with what it waits for).
func deleting(cr *extensionsv1alpha1.ContainerRuntime) bool {
	op := cr.Status.LastOperation
	return op != nil && op.Type == gardencorev1beta1.LastOperationTypeDelete &&
		(op.State == gardencorev1beta1.LastOperationStateProcessing || op.State == gardencorev1beta1.LastOperationStateError)
}

// reportWait records what Delete waits for as the library does (lastOperation Delete Error, lastError with the
// cause and its error codes), together with what the Actuator set on cr meanwhile (the uninstall conditions),
// in one patch from before (cr as it was read), and only if something changed.
func (r *reconciler) reportWait(ctx context.Context, log logr.Logger, before, cr *extensionsv1alpha1.ContainerRuntime, wait *reconcilerutils.RequeueAfterError) error {
	cause := reconcilerutils.ReconcileErrCauseOrErr(wait)
	description := v1beta1helper.FormatLastErrDescription(fmt.Errorf("%s: %v", deleteErrorDescription, cause))
	op, last := cr.Status.LastOperation, cr.Status.LastError
	if op != nil && op.Type == gardencorev1beta1.LastOperationTypeDelete && op.State == gardencorev1beta1.LastOperationStateError &&
		last != nil && last.Description == description && apiequality.Semantic.DeepEqual(before.Status, cr.Status) {
		log.V(1).Info("Still waiting", "reason", cause.Error(), "requeueAfter", wait.RequeueAfter)
		return nil
	}
	log.Info("Waiting", "reason", cause.Error(), "requeueAfter", wait.RequeueAfter)
	if last == nil || last.Description != description {
		lastOp, lastErr := extensionscontroller.ReconcileError(gardencorev1beta1.LastOperationTypeDelete, description, 50, v1beta1helper.ExtractErrorCodes(cause)...)
		cr.Status.ObservedGeneration = cr.Generation
		cr.Status.LastOperation, cr.Status.LastError = lastOp, lastErr
	}
	if err := client.IgnoreNotFound(r.client.Status().Patch(ctx, cr, client.MergeFrom(before))); err != nil {
		return fmt.Errorf("recording the wait in the status of ContainerRuntime %s/%s: %w", cr.Namespace, cr.Name, err)
	}
	return nil
}
