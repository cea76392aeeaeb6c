// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package oscmode

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	gvisorv1alpha1 "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/oscstate"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// record is the removal record on the pool's ContainerRuntime (nil if none).
func (sh *shoot) record() *gvisorv1alpha1.ContainerRuntimeStatus {
	sh.t.Helper()
	cr := sh.runtime()
	testutil.Must(sh.t, sh.exists(cr))
	r, err := oscwebhook.RemovalStatusOf(cr)
	testutil.Must(sh.t, err)
	return r
}

// reconcileWaiting annotates the ContainerRuntime and waits for the DaemonSet-mode switch to wait with want.
func (sh *shoot) reconcileWaiting(want string) {
	sh.t.Helper()
	sh.annotate(v1beta1constants.GardenerOperationReconcile)
	sh.waitOperation(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateError, want)
}

func mustRemovalOnly(t *testing.T, what string, o *extensionsv1alpha1.OperatingSystemConfig) {
	t.Helper()
	if !oscwebhook.RemovalOnly(o) {
		t.Fatalf("%s: want the OSC to carry only the remove entry, got %+v", what, oscstate.Classify(o))
	}
}

// TestSwitchOSCToDaemonSetWithoutRoll: OSC → DaemonSet completes on the same OSC object. The remove entry stays
// while one node has not applied it; once every node has, the controller records the OSC's generation on the
// ContainerRuntime (kept over a controller restart), the webhook's next update leaves the remove entry out (a
// node that joined meanwhile boots from the remove entry and changes nothing), and the DaemonSet is deployed. A
// switch back to the OSC mode in between (the add entry again, a new generation) makes the record stale: the
// following removal is kept until the nodes applied it again.
func TestSwitchOSCToDaemonSetWithoutRoll(t *testing.T) {
	osc, sh := createdShoot(t, delivery.OperatingSystemConfig, "noroll")
	sh.createNode("noroll-n0")
	sh.createNode("noroll-n1")
	installed := sh.syncSecret(sh.writeOSC(delivery.OperatingSystemConfig))
	sh.applied("noroll-n0", installed)
	sh.applied("noroll-n1", installed)

	osc.stop(t)
	ds := startController(t, delivery.DaemonSet)
	// Shoot reconcile 1: the webhook (DaemonSet mode) writes the remove entry; only one node applies it.
	removal := sh.writeOSC(delivery.DaemonSet)
	mustRemovalOnly(t, "first update after the switch", removal)
	sum := sh.syncSecret(removal)
	sh.applied("noroll-n0", sum)
	sh.reconcileWaiting("1 of 2 node(s) applied it")
	if r := sh.record(); r != nil {
		t.Fatalf("one node has not applied the removal, but the controller recorded %+v", r)
	}
	// gardenlet writes the OSC again: the remove entry is not dropped (no record), the spec and generation stay.
	again := sh.writeOSC(delivery.DaemonSet)
	mustRemovalOnly(t, "update while one node has not applied the removal", again)
	if again.Generation != removal.Generation {
		t.Fatalf("an unchanged removal bumped the generation %d -> %d", removal.Generation, again.Generation)
	}

	// Both nodes applied, but a node of an old machine set is being replaced (gardenlet does not judge it): no record.
	sh.applied("noroll-n1", sum)
	old := sh.node("noroll-old")
	old.Spec.Taints = []corev1.Taint{{Key: "deployment.machine.sapcloud.io/prefer-no-schedule", Effect: corev1.TaintEffectPreferNoSchedule}}
	testutil.Must(t, sh.c.Create(context.Background(), old))
	sh.reconcileWaiting("no node of the pool is being replaced any more (noroll-old)")
	if r := sh.record(); r != nil {
		t.Fatalf("a node is being replaced, but the controller recorded %+v", r)
	}
	testutil.Must(t, sh.c.Delete(context.Background(), old))

	// Now recorded, and kept over a controller restart.
	sh.reconcileWaiting("every node applied the remove entry")
	if r := sh.record(); r == nil || r.RemovalAppliedAtGeneration != removal.Generation || r.RemovalAppliedOSCUID != removal.UID {
		t.Fatalf("record = %+v, want generation %d of OSC %s", r, removal.Generation, removal.UID)
	}
	ds.stop(t)

	// A switch back to the OSC mode in between: the add entry again (new generation), then the removal again; the
	// stale record does not drop it.
	osc = startController(t, delivery.OperatingSystemConfig)
	readded := sh.writeOSC(delivery.OperatingSystemConfig)
	if s := oscstate.Classify(readded); !s.Carries() {
		t.Fatalf("OSC mode again: want gVisor added, got %+v", s)
	}
	osc.stop(t)
	ds = startController(t, delivery.DaemonSet)
	removal = sh.writeOSC(delivery.DaemonSet)
	mustRemovalOnly(t, "removal after the second switch (stale record)", removal)
	sum = sh.syncSecret(removal)
	sh.applied("noroll-n0", sum)
	sh.applied("noroll-n1", sum)
	// The lastError of the first record is still there: wait for the record itself.
	sh.annotate(v1beta1constants.GardenerOperationReconcile)
	sh.eventually("the removal recorded again", func() error {
		if r := sh.record(); r == nil || r.RemovalAppliedAtGeneration != removal.Generation {
			return fmt.Errorf("record = %+v, want generation %d", r, removal.Generation)
		}
		return nil
	})
	ds.stop(t)
	startController(t, delivery.DaemonSet) // a restart between the record and the drop

	// A node joins meanwhile (boots from the pool's secret: the remove entry). Shoot reconcile 2: the webhook leaves
	// the remove entry out; gardenlet syncs it; the DaemonSet is deployed.
	sh.createNode("noroll-n2")
	sh.applied("noroll-n2", sum)
	dropped := sh.writeOSC(delivery.DaemonSet)
	if s := oscstate.Classify(dropped); !s.Clean() {
		t.Fatalf("update at the recorded generation: want nothing of ours, got %+v", s)
	}
	// Until gardenlet synced the dropped OSC and every node applied it, the secret's remove entry could still reach
	// a node after the DaemonSet registered runsc: the DaemonSet waits.
	sh.reconcileWaiting("carries nothing of gVisor and every node applied it (secret kube-system/")
	clean := sh.syncSecret(dropped)
	sh.applied("noroll-n0", clean)
	sh.applied("noroll-n1", clean)
	sh.reconcileWaiting("2 of 3 node(s) applied it")
	sh.applied("noroll-n2", clean)
	sh.annotate(v1beta1constants.GardenerOperationReconcile)
	sh.waitOperation(gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateSucceeded, "")
	sh.eventually("installation DaemonSet in the shoot", func() error { return sh.exists(installationDS()) })
	sh.cleanup()
}
