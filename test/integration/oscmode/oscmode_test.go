// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package oscmode

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestOSCModeLifecycleAndHealth: in the OperatingSystemConfig mode the controller deploys only the RuntimeClass (no
// installation ManagedResource, no DaemonSet); EveryNodeReady follows what node-agent reports on the Nodes (not
// applied: Progressing; applied: True; the sandbox-proof unit failed: False naming the node); migrate releases and
// restore re-creates the RuntimeClass's ManagedResource; deletion leaves nothing (node cleanup is node-agent's).
func TestOSCModeLifecycleAndHealth(t *testing.T) {
	_, sh := createdShoot(t, delivery.OperatingSystemConfig, "lifecycle")
	ctx := context.Background()
	sh.eventually("RuntimeClass gvisor in the shoot", func() error { return sh.exists(&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}}) })
	if err := sh.gone(installationMR(sh)); err != nil {
		t.Errorf("OSC mode: %v", err)
	}
	if err := sh.gone(installationDS()); err != nil {
		t.Errorf("OSC mode: %v", err)
	}
	sh.waitCondition(gardencorev1beta1.ShootSystemComponentsHealthy, gardencorev1beta1.ConditionTrue)
	sh.waitCondition(gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionTrue) // no nodes yet

	// Nodes register before gardenlet synced the mutated OSC: not ready, with the reason.
	sh.createNode("osc-n0")
	sh.createNode("osc-n1")
	sh.waitCondition(gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionProgressing, "no OperatingSystemConfig secret")
	checksum := sh.syncSecret(sh.writeOSC(delivery.OperatingSystemConfig))
	c := sh.waitCondition(gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionProgressing,
		"not ready on 2 of 2 nodes", "osc-n0 (gardener-node-agent has not applied an OperatingSystemConfig yet)")
	t.Logf("EveryNodeReady before node-agent applied: %s", c.Message)
	sh.applied("osc-n0", checksum)
	sh.applied("osc-n1", checksum)
	sh.waitCondition(gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionTrue)

	// node-agent's systemd-unit check reports the proof unit failed on one node.
	sh.unitsReady("osc-n1", corev1.ConditionFalse, "other.service: failed; "+oscwebhook.ProofUnitName+": failed")
	c = sh.waitCondition(gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionFalse,
		`not ready on 1 of 2 nodes of worker pool "`+pool+`"`, "osc-n1 (gardener-node-agent reports "+oscwebhook.ProofUnitName+": failed")
	t.Logf("EveryNodeReady with a failed proof: %s", c.Message)
	sh.unitsReady("osc-n1", corev1.ConditionTrue, "All systemd units from the operating system config are running as expected.")
	sh.waitCondition(gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionTrue)

	// A newer OSC that node-agent has not applied everywhere yet.
	osc := sh.writeOSC(delivery.OperatingSystemConfig)
	osc.Spec.Files[0].Content.Inline.Data = "IyEvYmluL3NoCmV4aXQgMAo=" // another file of others changes the checksum
	newer := sh.syncSecret(osc)
	sh.applied("osc-n0", newer)
	sh.waitCondition(gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionProgressing,
		"osc-n1 (gardener-node-agent has not applied the pool's current OperatingSystemConfig yet")
	sh.applied("osc-n1", newer)
	sh.waitCondition(gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionTrue)

	// Migrate releases the RuntimeClass's ManagedResource (the RuntimeClass stays in the shoot); restore re-creates it.
	sh.annotate(v1beta1constants.GardenerOperationMigrate)
	sh.waitOperation(gardencorev1beta1.LastOperationTypeMigrate, gardencorev1beta1.LastOperationStateSucceeded, "")
	sh.eventually("ManagedResource gone after migrate", func() error { return sh.gone(sh.managedResource(containerruntime.ManagedResourceName)) })
	testutil.Must(t, sh.exists(&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}}))
	sh.annotate(v1beta1constants.GardenerOperationRestore)
	// A late reconcile of the Migrate (started on a cache that still had the migrate annotation) removes the
	// operation annotation when it ends, and with it a restore annotation set meanwhile; gardenlet would set it
	// again, and so does the test while the ContainerRuntime still says Migrate without an annotation.
	sh.eventually("restore annotation taken", func() error {
		cr := sh.runtime()
		if err := sh.exists(cr); err != nil {
			return err
		}
		if op := cr.Status.LastOperation; op != nil && op.Type == gardencorev1beta1.LastOperationTypeMigrate {
			if cr.Annotations[v1beta1constants.GardenerOperation] == "" {
				sh.annotate(v1beta1constants.GardenerOperationRestore)
			}
			return fmt.Errorf("lastOperation still %s %s", op.Type, op.State)
		}
		return nil
	})
	// The library removes the restore annotation after the Restore, so a no-op Reconcile may follow at once
	// (as in test/integration's TestMigrateRestore).
	sh.waitOperation(gardencorev1beta1.LastOperationTypeRestore+"|"+gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateSucceeded, "")
	testutil.Must(t, sh.exists(sh.managedResource(containerruntime.ManagedResourceName)))

	// Deletion: the RuntimeClass goes, nothing waits for an uninstall, no installation ManagedResource appears.
	cr := sh.runtime()
	testutil.Must(t, sh.exists(cr))
	testutil.Must(t, sh.c.Delete(ctx, cr))
	sh.eventually("ContainerRuntime gone", func() error { return sh.gone(sh.runtime()) })
	sh.eventually("RuntimeClass gone", func() error { return sh.gone(&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}}) })
	if err := sh.gone(installationMR(sh)); err != nil {
		t.Error(err)
	}
}

// TestSwitchDaemonSetToOSC: a pool installed by the DaemonSet keeps its installation (ManagedResource and DaemonSet)
// after the landscape switched to the OSC mode until the pool's OSC secret in the shoot delivers gVisor; then the
// ManagedResource goes without an uninstall (no uninstall DaemonSet ever appears) and the reconcile succeeds.
func TestSwitchDaemonSetToOSC(t *testing.T) {
	ds, sh := createdShoot(t, delivery.DaemonSet, "ds2osc")
	sh.eventually("installation DaemonSet in the shoot", func() error { return sh.exists(installationDS()) })

	ds.stop(t)
	startController(t, delivery.OperatingSystemConfig)
	sh.annotate(v1beta1constants.GardenerOperationReconcile)
	sh.waitOperation(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateError, "keeps its installation DaemonSet until")
	testutil.Must(t, sh.exists(installationMR(sh)))
	testutil.Must(t, sh.exists(installationDS()))

	// The shoot's next reconcile: the webhook mutates the OSC, gardenlet syncs it into the shoot.
	sh.syncSecret(sh.writeOSC(delivery.OperatingSystemConfig))
	sh.annotate(v1beta1constants.GardenerOperationReconcile)
	sh.waitOperation(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateSucceeded, "")
	sh.eventually("installation ManagedResource gone", func() error { return sh.gone(installationMR(sh)) })
	sh.eventually("installation DaemonSet gone", func() error { return sh.gone(installationDS()) })
	testutil.Must(t, sh.exists(&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}}))
	sh.cleanup()
}

// TestSwitchOSCToDaemonSet: after the switch back, the DaemonSet is not deployed while the pool's OSC carries
// gVisor (the add entry), nor while it carries the webhook's remove entry (node-agent would re-apply it over the
// DaemonSet's registration); it is deployed once the pool's OSC carries nothing of gVisor (here: a new OSC object,
// as after a rolling update of the pool).
func TestSwitchOSCToDaemonSet(t *testing.T) {
	osc, sh := createdShoot(t, delivery.OperatingSystemConfig, "osc2ds")
	sh.createNode("osc2ds-n0")
	sh.applied("osc2ds-n0", sh.syncSecret(sh.writeOSC(delivery.OperatingSystemConfig)))

	osc.stop(t)
	startController(t, delivery.DaemonSet)
	sh.annotate(v1beta1constants.GardenerOperationReconcile)
	sh.waitOperation(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateError, "entry add")
	if err := sh.gone(installationMR(sh)); err != nil {
		t.Errorf("the DaemonSet must wait while the OSC delivers gVisor: %v", err)
	}

	// The shoot's next reconcile: the webhook (DaemonSet mode) turns gVisor into the remove entry; node-agent applies it.
	removal := sh.writeOSC(delivery.DaemonSet)
	sh.applied("osc2ds-n0", sh.syncSecret(removal))
	sh.annotate(v1beta1constants.GardenerOperationReconcile)
	sh.waitOperation(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateError, "entry remove")
	if err := sh.gone(installationMR(sh)); err != nil {
		t.Errorf("the DaemonSet must wait while the OSC carries the remove entry: %v", err)
	}

	// A rolling update: gardenlet replaces the OSC object (the pool's new key: a new name, never mutated with gVisor)
	// and the pool's OSC secret; a new machine joins from it and the old one goes.
	testutil.Must(t, sh.c.Delete(context.Background(), removal))
	sh.roll()
	rolled := sh.writeOSC(delivery.DaemonSet)
	if rolled.Name == removal.Name {
		t.Fatalf("gardenlet kept the OSC name %s over a new machine image version", rolled.Name)
	}
	sh.createNode("osc2ds-n1")
	sh.applied("osc2ds-n1", sh.syncSecret(rolled))
	testutil.Must(t, sh.c.Delete(context.Background(), sh.node("osc2ds-n0")))
	sh.annotate(v1beta1constants.GardenerOperationReconcile)
	sh.waitOperation(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateSucceeded, "")
	sh.eventually("installation DaemonSet in the shoot", func() error { return sh.exists(installationDS()) })
	sh.cleanup()
}
