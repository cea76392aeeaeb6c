// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/utils/managedresources"
)

// Migrate sets keepObjects=true on the pool's and the shoot-wide ManagedResource, deletes them and waits until
// they are gone. The shoot keeps its RuntimeClass and DaemonSets; the ManagedResources, whose deletion without
// keepObjects got control plane migrations stuck in the field, no longer block the move. The shoot-wide one is
// released by every pool's Migrate: the whole shoot moves, and the first one to get there wins. Before that it
// records in status.state whether the readiness gate's objects are in the shoot (readinessgate_restore.go).
func (a *Actuator) Migrate(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, _ *extensionscontroller.Cluster) error {
	// Whether the readiness gate's objects are in the shoot, for a new seed that runs the gate off (readinessgate_restore.go).
	if err := a.recordGateForRestore(ctx, cr); err != nil {
		return err
	}
	names := []string{InstallationManagedResourceName(cr.Spec.WorkerPool.Name), ManagedResourceName}
	for _, name := range names {
		if err := releaseAndDelete(ctx, a.client, cr.Namespace, name); err != nil {
			return err
		}
	}
	log.Info("Released the ManagedResources, waiting for them to be gone", "managedResources", names)
	return a.waitUntilDeleted(ctx, cr.Namespace, names)
}

// releaseAndDelete sets keepObjects=true (so gardener-resource-manager leaves the objects in the shoot) and
// deletes the ManagedResource and its Secrets. Missing ones are fine.
func releaseAndDelete(ctx context.Context, c client.Client, namespace, name string) error {
	if err := managedresources.SetKeepObjects(ctx, c, namespace, name, true); err != nil {
		return fmt.Errorf("setting keepObjects on ManagedResource %s/%s: %w", namespace, name, err)
	}
	if err := managedresources.DeleteForShoot(ctx, c, namespace, name); err != nil {
		return fmt.Errorf("deleting ManagedResource %s/%s: %w", namespace, name, err)
	}
	return nil
}

// waitUntilDeleted waits at most deleteWaitTimeout for all named ManagedResources to be gone. The error keeps
// gardener-resource-manager's reason (for example a DaemonSet that cannot be deleted) so lastError shows it.
func (a *Actuator) waitUntilDeleted(ctx context.Context, namespace string, names []string) error {
	ctx, cancel := context.WithTimeout(ctx, a.settings.DeleteWaitTimeout)
	defer cancel()
	var errs []error
	for _, name := range names {
		if err := managedresources.WaitUntilDeleted(ctx, a.client, namespace, name); err != nil {
			errs = append(errs, fmt.Errorf("ManagedResource %s/%s still exists after %s: %w", namespace, name, a.settings.DeleteWaitTimeout.Round(time.Second), err))
		}
	}
	return errors.Join(errs...)
}
