// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"
	"github.com/gardener/gardener/pkg/utils/kubernetes/health"
)

// skipUninstall says why the pool's nodes need no uninstall before its ManagedResource is deleted, or "".
// When the whole shoot goes (its deletion timestamp is set), its nodes go too; a hibernated shoot has no nodes and
// no API server for gardener-resource-manager to roll anything out on. ForceDelete and Migrate never uninstall.
func skipUninstall(cluster *extensionscontroller.Cluster) string {
	switch {
	case cluster == nil || cluster.Shoot == nil:
		return ""
	case cluster.Shoot.DeletionTimestamp != nil:
		return "the shoot is being deleted"
	case extensionscontroller.IsHibernated(cluster):
		return "the shoot is hibernated"
	}
	return ""
}

// uninstall removes gVisor from the nodes of cr's pool before its ManagedResource goes: it replaces the content of
// extension-runtime-gvisor-installation-<pool> with the installation chart in uninstall mode (the same DaemonSet,
// so gardener-resource-manager updates it and it rolls node by node from install to uninstall) and returns nil
// once every node reports done, i.e. gardener-resource-manager reports the ManagedResource applied for the new
// content, healthy and not progressing: the DaemonSet's updatedNumberScheduled == desiredNumberScheduled and no
// pod unavailable, a Ready uninstall pod meaning its node is clean. Nodes deleted meanwhile leave
// desiredNumberScheduled and do not block. Until then it returns a RequeueAfterError whose cause lastError shows.
//
// The wait is bounded by uninstallTimeout, counted from cr's deletion timestamp (so requeues do not extend it).
// After it, the removal proceeds with a warning: nodes whose uninstall did not finish keep runsc registered.
func (a *Actuator) uninstall(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	if _, done := a.uninstalled.Load(cr.UID); done {
		return nil // an earlier pass of this process saw it done (or timed out); the removal is under way
	}
	name := InstallationManagedResourceName(cr.Spec.WorkerPool.Name)
	before, err := a.readForUninstall(ctx, cr, name)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil // never installed (or already removed): nothing on the nodes to undo
		}
		return fmt.Errorf("reading ManagedResource %s/%s: %w", cr.Namespace, name, err)
	}
	if before.DeletionTimestamp != nil {
		return nil // a previous Delete got past the uninstall (done or timed out) and is removing the pool
	}
	if before.Status.ObservedGeneration == 0 {
		// gardener-resource-manager never applied it: the installation never reached the shoot's nodes.
		log.Info("Not uninstalling: the pool's installation was never applied to the shoot", "managedResource", name)
		return nil
	}

	deadline := a.uninstallDeadline(cr)
	if !time.Now().Before(deadline) {
		a.warnUninstallTimeout(log, cr, before)
		a.uninstalls.Delete(cr.UID)
		a.uninstalled.Store(cr.UID, struct{}{})
		return nil
	}
	mr, justHanded, err := a.deployUninstall(ctx, log, cr, cluster, before)
	if err != nil {
		return err
	}
	notDone := uninstallPending(mr)
	if justHanded {
		log.Info("Rolling out the uninstall to the pool's nodes", "managedResource", name, "deadline", deadline)
	}
	if justHanded || inFlight(mr) {
		// One message from the handover until gardener-resource-manager reports the uninstall applied and rolled
		// out: its own steps (apply, then the checks) and its progress messages (with every node the DaemonSet
		// rolls to, and its controller's observed generation first) would each be one more status write, 50 for
		// a pool of 50 nodes. The ManagedResource's conditions keep the progress.
		notDone = fmt.Errorf("gardener-resource-manager is rolling the uninstall out (ManagedResource %s/%s has the progress in its conditions)", mr.Namespace, mr.Name)
	}
	requeue := requeueBefore(deadline)
	if notDone == nil {
		if notDone = a.confirmUninstalled(ctx, cr, mr); notDone != nil {
			requeue = confirmRequeue
		}
	}
	if notDone != nil {
		cause := fmt.Errorf("removing gVisor from the nodes of worker pool %q: not done on every node yet (%w); waiting until %s, then the pool is removed anyway",
			cr.Spec.WorkerPool.Name, notDone, deadline.UTC().Format(time.RFC3339))
		if err := a.reportUninstalling(cr, cause.Error()); err != nil {
			return err
		}
		// gardener-resource-manager's status updates wake the Delete (delete_watch.go); the requeue is for the deadline,
		// or soon when only the shoot's confirmation is missing (delete_uninstallconfirm.go).
		return &reconcilerutils.RequeueAfterError{Cause: cause, RequeueAfter: requeue}
	}
	a.uninstalls.Delete(cr.UID)
	a.uninstalled.Store(cr.UID, struct{}{})
	log.Info("gVisor removed from every node of the pool", "managedResource", name)
	return nil
}

// readForUninstall reads the pool's ManagedResource name from the cache where that is enough to decide, else from
// the API server. Enough: it is being deleted (that is not undone), or it is at the generation this process
// deployed the uninstall at (a.uninstalls), whose status is then either older than gardener-resource-manager's
// look at the uninstall (observedGeneration behind) or computed for it, or gardener-resource-manager has applied it
// (observedGeneration set: a cache can be behind, but not ahead, so it was applied, and the uninstall is due). Not
// enough: missing or never applied, because a cache that has not seen a ManagedResource created or applied yet
// would skip the uninstall. The events that wake a waiting Delete come from the same cache, so the passes while the
// uninstall rolls out read nothing live.
func (a *Actuator) readForUninstall(ctx context.Context, cr *extensionsv1alpha1.ContainerRuntime, name string) (*resourcesv1alpha1.ManagedResource, error) {
	key := client.ObjectKey{Namespace: cr.Namespace, Name: name}
	cached := &resourcesv1alpha1.ManagedResource{}
	if err := a.client.Get(ctx, key, cached); err == nil {
		gen, ok := a.uninstalls.Load(cr.UID)
		if cached.DeletionTimestamp != nil || (ok && gen == cached.Generation) || cached.Status.ObservedGeneration > 0 {
			return cached, nil
		}
	}
	live := &resourcesv1alpha1.ManagedResource{}
	if err := a.apiReader.Get(ctx, key, live); err != nil {
		return nil, err
	}
	return live, nil
}

// deployUninstall hands the pool's uninstall content to gardener-resource-manager and returns the ManagedResource
// as the API server has it afterwards, and whether this call changed it (a new generation). A pass that finds the
// ManagedResource at the generation this process deployed the uninstall at (a.uninstalls) neither renders nor
// deploys again: before is then what it needs. Without that memory (a restart) it renders and deploys, which
// changes nothing when the uninstall is there already.
func (a *Actuator) deployUninstall(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster,
	before *resourcesv1alpha1.ManagedResource) (*resourcesv1alpha1.ManagedResource, bool, error) {
	if gen, ok := a.uninstalls.Load(cr.UID); ok && gen == before.Generation {
		return before, false, nil
	}
	_, pool, err := a.desired(log, cr, cluster, true)
	if err != nil {
		return nil, false, err
	}
	if pool.Installation == nil {
		// The OperatingSystemConfig mode with the pool's installation still there (deleted before the handover,
		// deliveryswitch.go): its files are the DaemonSet's alone, so the DaemonSet's uninstall removes them.
		if pool, err = a.daemonSetUninstall(cr, cluster); err != nil {
			return nil, false, err
		}
	}
	// The API server's answer to the write, not the cache: the cache may not have this process's own write yet,
	// and its old status would look done.
	mr, err := a.deployForShootWritten(ctx, before.Namespace, before.Name, pool.Installation.Files())
	if err != nil {
		return nil, false, fmt.Errorf("deploying the uninstall: %w", err)
	}
	if mr == nil {
		mr = before // the uninstall was there already (an earlier process deployed it)
	}
	a.uninstalls.Store(cr.UID, mr.Generation)
	return mr, mr.Generation != before.Generation, nil
}

// uninstallPending returns nil when gardener-resource-manager reports the uninstall rolled out and Ready on every
// node, else what it reports (its messages count the nodes, e.g. "1 of 3 replica(s) have been updated" or
// "too many unavailable pods found (2/3)").
func uninstallPending(mr *resourcesv1alpha1.ManagedResource) error {
	if err := health.CheckManagedResourceApplied(mr); err != nil {
		return err
	}
	if err := health.CheckManagedResourceProgressing(mr); err != nil {
		return err
	}
	return health.CheckManagedResourceHealthy(mr)
}

// inFlight: gardener-resource-manager has not yet applied and checked mr (catchingUp) or reports its objects
// progressing (rollingOut). Either way the Delete has nothing new to report or decide.
func inFlight(mr *resourcesv1alpha1.ManagedResource) bool { return catchingUp(mr) || rollingOut(mr) }

// rollingOut: gardener-resource-manager reports mr's objects as progressing (a DaemonSet rolling to its nodes),
// as Gardener's own check judges it.
func rollingOut(mr *resourcesv1alpha1.ManagedResource) bool {
	return health.CheckManagedResourceProgressing(mr) != nil
}

// catchingUp: gardener-resource-manager has not yet applied mr's current generation, or not yet checked what it
// applied (a condition missing or Unknown: it resets Healthy and Progressing to Unknown when the content changes).
// Nothing about the nodes is known yet.
func catchingUp(mr *resourcesv1alpha1.ManagedResource) bool {
	if mr.Status.ObservedGeneration != mr.Generation {
		return true
	}
	for _, t := range []gardencorev1beta1.ConditionType{resourcesv1alpha1.ResourcesApplied, resourcesv1alpha1.ResourcesHealthy, resourcesv1alpha1.ResourcesProgressing} {
		c := v1beta1helper.GetCondition(mr.Status.Conditions, t)
		if c == nil || c.Status == gardencorev1beta1.ConditionUnknown || (t == resourcesv1alpha1.ResourcesApplied && c.Status == gardencorev1beta1.ConditionProgressing) {
			return true
		}
	}
	return false
}

// uninstallDeadline is cr's deletion timestamp plus uninstallTimeout (now plus it if, oddly, there is none).
func (a *Actuator) uninstallDeadline(cr *extensionsv1alpha1.ContainerRuntime) time.Time {
	start := time.Now()
	if cr.DeletionTimestamp != nil {
		start = cr.DeletionTimestamp.Time
	}
	return start.Add(a.settings.UninstallTimeout)
}

// warnUninstallTimeout records that the pool is removed although its uninstall did not finish everywhere.
func (a *Actuator) warnUninstallTimeout(log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, mr *resourcesv1alpha1.ManagedResource) {
	state := "unknown"
	if err := uninstallPending(mr); err != nil {
		state = err.Error()
	}
	const msg = "removing worker pool %q without a finished uninstall after %s (%s): nodes where it did not finish " +
		"keep runsc registered with containerd; run `gvisor-installer uninstall` there or replace the nodes"
	log.Info("Uninstall timed out, removing the pool anyway", "timeout", a.settings.UninstallTimeout, "state", state)
	if a.recorder != nil {
		a.recorder.Eventf(cr, nil, corev1.EventTypeWarning, "UninstallTimedOut", "Delete", msg, cr.Spec.WorkerPool.Name, a.settings.UninstallTimeout, state)
	}
}
