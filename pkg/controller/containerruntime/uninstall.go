// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"
	"github.com/gardener/gardener/pkg/utils/kubernetes/health"
)

// uninstallSettle is how long Delete waits (a requeue) after swapping the pool's content to the uninstall before
// it reads gardener-resource-manager's conditions: they may still be the ones computed for the install content
// before it noticed the DaemonSet change. After it, requeueAfter (requeue.go) polls quickly at first: a pool
// without nodes, or a quick rollout, is done in about a second, the common case.
const uninstallSettle = time.Second

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
	name := InstallationManagedResourceName(cr.Spec.WorkerPool.Name)
	before := &resourcesv1alpha1.ManagedResource{}
	if err := a.apiReader.Get(ctx, client.ObjectKey{Namespace: cr.Namespace, Name: name}, before); err != nil {
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
		return nil
	}

	_, pool, err := a.desired(log, cr, cluster, true)
	if err != nil {
		return err
	}
	if pool.Installation == nil {
		// The OperatingSystemConfig mode with the pool's installation still there (deleted before the handover,
		// deliveryswitch.go): its files are the DaemonSet's alone, so the DaemonSet's uninstall removes them.
		if pool, err = a.daemonSetUninstall(cr, cluster); err != nil {
			return err
		}
	}
	if err := a.deployForShoot(ctx, cr.Namespace, name, pool.Installation.Files()); err != nil {
		return fmt.Errorf("deploying the uninstall: %w", err)
	}

	mr := &resourcesv1alpha1.ManagedResource{}
	if err := a.apiReader.Get(ctx, client.ObjectKey{Namespace: cr.Namespace, Name: name}, mr); err != nil {
		return fmt.Errorf("reading ManagedResource %s/%s: %w", cr.Namespace, name, err)
	}
	notDone := uninstallPending(mr)
	requeue := requeueAfter(deadline.Add(-a.settings.UninstallTimeout))
	if mr.Generation != before.Generation {
		log.Info("Rolling out the uninstall to the pool's nodes", "managedResource", name, "deadline", deadline)
		notDone, requeue = errors.New("the uninstall was just handed to gardener-resource-manager"), uninstallSettle
	}
	if notDone != nil {
		cause := fmt.Errorf("removing gVisor from the nodes of worker pool %q: not done on every node yet (%w); waiting until %s, then the pool is removed anyway",
			cr.Spec.WorkerPool.Name, notDone, deadline.UTC().Format(time.RFC3339))
		if err := a.reportUninstalling(ctx, cr, cause.Error()); err != nil {
			return err
		}
		return &reconcilerutils.RequeueAfterError{Cause: cause, RequeueAfter: requeue}
	}
	log.Info("gVisor removed from every node of the pool", "managedResource", name)
	return nil
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
