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
// Actuator's Delete, lastOperation Succeeded, finalizer removed) and two differences: a Delete that waits (the
// Actuator returns a RequeueAfterError) writes the status only when what it reports changed, in one patch, and
// logs the wait without a stack trace; and Processing is written with the first pass's outcome, not before it. The library's delete writes lastOperation twice on every pass (Processing, then Error with
// the cause) and logs the cause as an error; with a Delete woken by every event of its ManagedResources that
// would be two status writes per event.
//
// ForceDelete, Migrate, Restore, a failed shoot, a migrated object and a Delete with gardenlet's operation
// annotation go to the library unchanged.
type reconciler struct {
	library  reconcile.Reconciler
	client   client.Client
	actuator extensionscontainerruntimecontroller.Actuator
	status   extensionscontroller.StatusUpdater
}

func newReconciler(mgr manager.Manager, actuator extensionscontainerruntimecontroller.Actuator) reconcile.Reconciler {
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
	err := r.actuator.Delete(withStatusWrittenByCaller(ctx), log, cr, cluster)
	var wait *reconcilerutils.RequeueAfterError
	if errors.As(err, &wait) {
		return reconcile.Result{RequeueAfter: wait.RequeueAfter}, r.reportWait(ctx, log, before, cr, wait)
	}
	if err != nil {
		_ = r.status.Error(ctx, log, cr, err, gardencorev1beta1.LastOperationTypeDelete, deleteErrorDescription)
		return reconcile.Result{}, err
	}
	if err := r.status.Success(ctx, log, cr, gardencorev1beta1.LastOperationTypeDelete, "Successfully deleted ContainerRuntime"); err != nil {
		return reconcile.Result{}, err
	}
	log.Info("Removing finalizer")
	if err := controllerutils.RemoveFinalizers(ctx, r.client, cr, extensionscontainerruntimecontroller.FinalizerName); err != nil {
		return reconcile.Result{}, fmt.Errorf("failed to remove finalizer: %w", err)
	}
	return reconcile.Result{}, nil
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

// statusWrittenByCallerKey marks a context whose caller writes cr's status after the Actuator returns.
type statusWrittenByCallerKey struct{}

func withStatusWrittenByCaller(ctx context.Context) context.Context {
	return context.WithValue(ctx, statusWrittenByCallerKey{}, true)
}

// statusWrittenByCaller: the Actuator only sets what it reports in cr's status; the caller writes it (reconciler).
func statusWrittenByCaller(ctx context.Context) bool {
	v, _ := ctx.Value(statusWrittenByCallerKey{}).(bool)
	return v
}
