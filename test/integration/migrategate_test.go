// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// TestMigrateSwitchesGateOff: a control plane migration whose new seed runs the readiness gate off
// (--readiness-gate=false) while the old seed ran it on. Migrate on the old seed releases the ManagedResources and
// keeps their objects in the shoot, the gate's policy and the pool's RBAC among them, and records that in the
// ContainerRuntime's status.state, which gardenlet carries to the new seed; Restore on the new seed adopts them and
// then renders the gate off. Afterwards the pool's RBAC must be gone before the policy that guards it (read from
// the real kube-apiserver's audit log, as TestReadinessGateOrder does), none of the gate's objects may be left
// behind, the DaemonSet rolls once (gate on to off), status.state is cleared, and every node of the pool stays
// schedulable for gVisor pods (the RuntimeClass's node selector matches it).
func TestMigrateSwitchesGateOff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sh := newShoot(t, "migrategate", "1.31.12")
	settings := containerruntime.Settings{UninstallTimeout: time.Minute, DeleteWaitTimeout: time.Minute}
	oldSeed := settings
	oldSeed.Render = render.Settings{ReadinessGate: true}
	on, off := sh.actuator(oldSeed), sh.actuator(settings)
	// This test plays both seeds' controllers with two actuators; class garden keeps the test stack's controller
	// (class shoot) away from the ContainerRuntime, which must exist for Migrate to write its status.state.
	cr := gardenerfixtures.ContainerRuntime(sh.ns, "a", nil, "")
	cr.Spec.Class = ptr.To(extensionsv1alpha1.ExtensionClassGarden)
	must(t, sh.c.Create(ctx, cr))
	t.Cleanup(func() { _ = sh.c.Delete(context.Background(), cr) })
	cluster := sh.clusterWithVersion("1.31.12")
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "gvisor-node-ready-label"}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "gvisor-installation:node-ready-label:a"}}
	gateObjects := []client.Object{policy, binding,
		&admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "gvisor-node-ready-label"}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gvisor-installation:node-ready-label"}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "gvisor-installation-a"}},
	}
	const (
		vap = "validatingadmissionpolicies/gvisor-node-ready-label"
		crb = "clusterrolebindings/gvisor-installation:node-ready-label:a"
	)

	// The old seed, gate on; its installers labelled both nodes.
	reconcileWithRequeues(t, on, cr, cluster)
	sh.waitPoolHealthy("a")
	nodes := []string{"migrategate-a-0", "migrategate-a-1"}
	for _, n := range nodes {
		sh.createNode(n, "a")
		sh.labelNode(n, nodelabel.Key, nodelabel.Value)
	}
	sh.keepInstallPodsReady("a")
	for _, obj := range gateObjects {
		if !sh.exists(obj) {
			t.Fatalf("gate on: %T %s not in the shoot", obj, obj.GetName())
		}
	}
	generation := sh.daemonSet("a").Generation

	// Migrate on the old seed: it records the gate in status.state.
	mark := sh.auditMark()
	must(t, on.Migrate(ctx, logr.Discard(), cr, cluster))
	for _, name := range []string{containerruntime.ManagedResourceName, containerruntime.InstallationManagedResourceName("a")} {
		sh.waitGone(sh.managedResource(name))
	}
	// gardenlet carries status.state to the new seed: Restore gets the ContainerRuntime as stored.
	moved := &extensionsv1alpha1.ContainerRuntime{}
	must(t, sh.c.Get(ctx, client.ObjectKeyFromObject(cr), moved))
	if moved.Status.State == nil || string(moved.Status.State.Raw) != `{"readinessGate":true}` {
		t.Fatalf("status.state after Migrate = %v, want {\"readinessGate\":true}", moved.Status.State)
	}

	// Restore on the new seed, gate off.
	restoreWithRequeues(t, off, moved, cluster)
	sh.waitPoolHealthy("a")
	for _, n := range nodes {
		sh.assertSchedulable(n)
	}
	for _, obj := range gateObjects {
		sh.waitGone(obj)
	}
	sh.assertWrittenBefore(mark, "delete", []string{crb}, vap)
	if got := sh.daemonSet("a").Generation; got != generation+1 {
		t.Errorf("DaemonSet generation %d after Restore, was %d: want one rollout (gate on to off)", got, generation)
	}
	must(t, sh.c.Get(ctx, client.ObjectKeyFromObject(cr), moved))
	if moved.Status.State != nil {
		t.Errorf("status.state after Restore = %s, want none", moved.Status.State.Raw)
	}
	deleteWithRequeues(t, off, moved, cluster)
	sh.waitNoShootObjects()
}

// restoreWithRequeues calls Restore as the library does: again after a RequeueAfterError, until it succeeds.
func restoreWithRequeues(t *testing.T, a *containerruntime.Actuator, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		err := a.Restore(context.Background(), logr.Discard(), cr, cluster)
		if err == nil {
			return
		}
		var requeue *reconcilerutils.RequeueAfterError
		if !errors.As(err, &requeue) || time.Now().After(deadline) {
			t.Fatalf("Restore: %v", err)
		}
		t.Logf("requeue: %v", requeue.Cause)
		time.Sleep(requeue.RequeueAfter)
	}
}

// keepInstallPodsReady plays the kubelet for the rest of the test: every install pod of pool becomes Ready soon
// after it is created (the DaemonSet's rollouts then complete, node by node).
func (sh *testShoot) keepInstallPodsReady(pool string) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	sh.t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			list := &corev1.PodList{}
			if err := sh.c.List(ctx, list, client.InNamespace(metav1.NamespaceSystem),
				client.MatchingLabels{"app.kubernetes.io/name": "gvisor-installation", "app.kubernetes.io/instance": pool}); err == nil {
				for i := range list.Items {
					if p := &list.Items[i]; p.DeletionTimestamp == nil && !isReady(p) {
						p.Status.Phase = corev1.PodRunning
						p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()})
						_ = sh.c.Status().Update(ctx, p) // a conflict is retried on the next round
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
}

// labelNode sets a label on a node, as an installer with --label-node does.
func (sh *testShoot) labelNode(name, key, value string) {
	sh.t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	patch := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"labels":{"`+key+`":"`+value+`"}}}`))
	must(sh.t, sh.c.Patch(context.Background(), node, patch))
}

// assertSchedulable checks that a gVisor pod could be scheduled onto the node: the RuntimeClass's node selector
// (which the scheduler adds to every pod of the class) matches the node's labels.
func (sh *testShoot) assertSchedulable(name string) {
	sh.t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	must(sh.t, sh.c.Get(context.Background(), client.ObjectKeyFromObject(node), node))
	rc := sh.runtimeClass()
	if rc.Scheduling == nil {
		return
	}
	if !labels.SelectorFromSet(rc.Scheduling.NodeSelector).Matches(labels.Set(node.Labels)) {
		sh.t.Errorf("node %s (labels %v) does not match RuntimeClass %s's node selector %v: gVisor pods cannot be scheduled there",
			name, node.Labels, rc.Name, rc.Scheduling.NodeSelector)
	}
}
