// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
)

// TestMigrateRestore is the control plane migration that got stuck in the field: Migrate must release the
// ManagedResources (gone, so nothing blocks the move) while the shoot keeps its RuntimeClass and DaemonSets, and
// Restore on the "new seed" must bring the ManagedResources back, adopting the same objects, healthy.
func TestMigrateRestore(t *testing.T) {
	t.Parallel()
	pools := []string{"a", "b"}
	sh := newShoot(t, "migrate", "1.33.4")
	for _, pool := range pools {
		sh.createRuntime(pool, "")
		sh.waitOperation(pool, "Create", "Succeeded")
		sh.waitPoolHealthy(pool)
	}
	kept := []client.Object{sh.daemonSet("a"), sh.daemonSet("b"), sh.runtimeClass()}

	// gardenlet annotates every extension resource of the shoot with migrate on the old seed.
	for _, pool := range pools {
		sh.updateRuntime(pool, v1beta1constants.GardenerOperationMigrate, nil)
	}
	for _, pool := range pools {
		if cr := sh.waitOperation(pool, "Migrate", "Succeeded"); len(cr.Finalizers) > 0 {
			t.Errorf("ContainerRuntime %s keeps finalizers %v after Migrate", cr.Name, cr.Finalizers)
		}
	}
	mrNames := []string{containerruntime.ManagedResourceName, containerruntime.InstallationManagedResourceName("a"), containerruntime.InstallationManagedResourceName("b")}
	for _, name := range mrNames {
		sh.waitGone(sh.managedResource(name))
	}
	// gardener-resource-manager released the ManagedResources: had it deleted their objects, they would be gone
	// or terminating now. They must be the very same objects, untouched.
	sh.assertSameObjects(kept, "after Migrate")

	// The old seed deletes the migrated resources (no finalizers left, so they vanish at once); the new seed
	// creates them again annotated with restore. Here the "new seed" is the same cluster watched by the same
	// controller: wait until it is idle, so that no reconcile queued by Migrate's own updates still runs on a
	// cached copy of the old object (Gardener's library would patch that copy's bookkeeping onto the new
	// object of the same name). A real new seed has no copy of the old object.
	ctx := context.Background()
	sh.waitControllerIdle()
	for _, pool := range pools {
		cr := &extensionsv1alpha1.ContainerRuntime{}
		cr.Name, cr.Namespace = sh.runtimeName(pool), sh.ns
		must(t, sh.c.Delete(ctx, cr))
		sh.waitGone(cr)
	}
	sh.waitControllerIdle()
	for _, pool := range pools {
		sh.createRuntimeWithOperation(pool, "", v1beta1constants.GardenerOperationRestore)
	}
	for _, pool := range pools {
		// The extension library's own status patch re-queues an object that still carries the restore
		// annotation, so a (no-op) Reconcile may follow the Restore at once and be the last operation.
		sh.waitOperation(pool, "Restore|Reconcile", "Succeeded")
		sh.waitPoolHealthy(pool)
	}
	sh.assertSameObjects(kept, "after Restore")
}

// assertSameObjects checks that each object still exists with the same UID and is not being deleted.
func (sh *testShoot) assertSameObjects(objs []client.Object, when string) {
	sh.t.Helper()
	for _, before := range objs {
		now := before.DeepCopyObject().(client.Object)
		if !sh.exists(now) {
			sh.t.Errorf("%T %s is gone %s", before, client.ObjectKeyFromObject(before), when)
			continue
		}
		if now.GetUID() != before.GetUID() || now.GetDeletionTimestamp() != nil {
			sh.t.Errorf("%T %s was replaced or is being deleted %s (uid %s -> %s, deletionTimestamp %v)",
				before, client.ObjectKeyFromObject(before), when, before.GetUID(), now.GetUID(), now.GetDeletionTimestamp())
		}
	}
}
