// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
)

// Delete first removes gVisor from the pool's nodes (uninstall, bounded; skipped when the shoot itself is being
// deleted or is hibernated), then removes the pool's ManagedResource, then the shoot-wide one if no other gvisor
// ContainerRuntime in the namespace remains, and returns once they are gone. The shoot-wide one (with the
// readiness gate: the installers' ClusterRole and policy) stays until the uninstall is done, because the
// uninstalling installer needs it to remove its node's label.
//
// Delete never waits inside the call: while the uninstall rolls out or gardener-resource-manager removes the
// ManagedResources' objects from the shoot, it returns a RequeueAfterError (delete_requeue.go) and the worker moves on
// to the next ContainerRuntime, so that a batch of removals proceeds in parallel instead of one pool per worker.
//
// Delete is what the extension library's reconciler calls (a failed shoot, a Delete with gardenlet's operation
// annotation): it writes the uninstall's health conditions itself. This package's reconciler calls
// deleteDeferringStatus and writes them with lastError, in one patch.
func (a *Actuator) Delete(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	before := cr.Status.Conditions
	err := a.deleteDeferringStatus(ctx, log, cr, cluster)
	if werr := a.writeConditions(ctx, cr, before); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// deleteDeferringStatus is Delete, except that what it reports in cr's status (the uninstall's health conditions) is
// only set on cr, for the caller to write.
func (a *Actuator) deleteDeferringStatus(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	if why := skipUninstall(cluster); why != "" {
		log.Info("Not uninstalling gVisor from the pool's nodes", "reason", why)
	} else if err := a.uninstall(ctx, log, cr, cluster); err != nil {
		return err
	}
	// The pool's ManagedResource (with the readiness gate: its RBAC) is gone before the shoot-wide one (the admission
	// policy that confines that RBAC) is deleted (readinessgate_order.go). Whether the shoot-wide one goes is decided once the
	// pool's is gone, so the passes waiting for it list nothing.
	if err := a.deleteAndRequeue(ctx, cr, []string{InstallationManagedResourceName(cr.Spec.WorkerPool.Name)}); err != nil {
		return err
	}
	if a.shootWideRemoved(ctx, cr.Namespace) {
		a.uninstalled.Delete(cr.UID)
		return nil // another pass of this process removed it (and the shoot's monitoring objects) already
	}
	names, err := a.managedResourcesToDelete(ctx, log, cr)
	if err != nil {
		return err
	}
	if err := a.deleteShootMonitoringWith(ctx, cr.Namespace, names); err != nil {
		return err
	}
	if err := a.deleteAndRequeue(ctx, cr, names[1:]); err != nil {
		return err
	}
	a.uninstalled.Delete(cr.UID)
	return nil
}

// shootWideRemoved: this process deleted the shoot-wide ManagedResource of namespace and the cache no longer has it
// (delete_removedmemory.go), so a deleting pool need not list the namespace's ContainerRuntimes to decide about it. A pool
// reconciled meanwhile deploys it again, which forgets the removal.
func (a *Actuator) shootWideRemoved(ctx context.Context, namespace string) bool {
	if !a.removed.has(namespace, ManagedResourceName) {
		return false
	}
	err := a.client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ManagedResourceName}, &resourcesv1alpha1.ManagedResource{})
	return apierrors.IsNotFound(err)
}

// ForceDelete deletes the same ManagedResources as Delete without waiting. keepObjects is set first: the shoot
// cluster is being destroyed and may be unreachable, and gardener-resource-manager must not block on it.
func (a *Actuator) ForceDelete(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, _ *extensionscontroller.Cluster) error {
	names, err := a.managedResourcesToDelete(ctx, log, cr)
	if err != nil {
		return err
	}
	if err := a.deleteShootMonitoringWith(ctx, cr.Namespace, names); err != nil {
		return err
	}
	for _, name := range names {
		if err := releaseAndDelete(ctx, a.client, cr.Namespace, name); err != nil {
			return err
		}
	}
	return nil
}

// managedResourcesToDelete returns the pool's ManagedResource, plus the shoot-wide one when cr is the last gvisor
// ContainerRuntime of the namespace that is not being deleted.
func (a *Actuator) managedResourcesToDelete(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime) ([]string, error) {
	names := []string{InstallationManagedResourceName(cr.Spec.WorkerPool.Name)}
	others, err := a.otherActiveRuntimes(ctx, cr)
	if err != nil {
		return nil, err
	}
	if len(others) > 0 {
		log.Info("Keeping the RuntimeClass: other gvisor ContainerRuntimes remain", "containerRuntimes", others)
		return names, nil
	}
	return append(names, ManagedResourceName), nil
}

// otherActiveRuntimes lists, with a live read, the gvisor ContainerRuntimes in cr's namespace other than cr that
// have no deletion timestamp. The cache could miss one created a moment ago, and deleting the RuntimeClass under
// a new pool is what a live read prevents.
func (a *Actuator) otherActiveRuntimes(ctx context.Context, cr *extensionsv1alpha1.ContainerRuntime) ([]string, error) {
	list := &extensionsv1alpha1.ContainerRuntimeList{}
	if err := a.apiReader.List(ctx, list, client.InNamespace(cr.Namespace)); err != nil {
		return nil, fmt.Errorf("listing ContainerRuntimes in %s: %w", cr.Namespace, err)
	}
	var others []string
	for _, item := range list.Items {
		if item.Name != cr.Name && item.Spec.Type == Type && item.DeletionTimestamp == nil {
			others = append(others, item.Name)
		}
	}
	return others, nil
}
