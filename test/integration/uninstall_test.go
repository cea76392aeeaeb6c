// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/healthcheck"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// TestRemoveFromPool: deleting a pool's ContainerRuntime while its nodes stay first rolls the uninstall out on
// them (the same DaemonSet, now running `gvisor-installer uninstall`), waits while nodes are not done, does not
// wait for a node that is deleted meanwhile, and removes everything once the remaining nodes report done.
// There are no kubelets: kube-controller-manager's daemonset controller creates the pods, and the test plays the
// kubelet by setting their Ready condition, which is what the DaemonSet's status (and so gardener-resource-manager's
// health and progressing conditions, which Delete reads) is computed from.
func TestRemoveFromPool(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "uninstall", "1.33.4")
	sh.createRuntime("a", "")
	sh.waitOperation("a", "Create", "Succeeded")
	sh.waitPoolHealthy("a")
	nodes := []string{"uninstall-a-0", "uninstall-a-1", "uninstall-a-2"}
	for _, n := range nodes {
		sh.createNode(n, "a")
	}
	sh.createNode("uninstall-other-0", "other") // another pool's node: not part of the uninstall
	installDS := sh.daemonSet("a")
	sh.waitPods("a", false, nodes)

	ctx := context.Background()
	must(t, sh.c.Delete(ctx, sh.runtime("a")))

	// The install DaemonSet is replaced in place by the uninstall one (same object, rolled, not recreated).
	var ds *appsv1.DaemonSet
	sh.eventually("pool a's DaemonSet in uninstall mode", func() error {
		ds = sh.daemonSet("a")
		if ds.Labels[render.ModeLabel] != string(render.ModeUninstall) {
			return fmt.Errorf("labels %v", ds.Labels)
		}
		return nil
	})
	if ds.UID != installDS.UID {
		t.Errorf("the uninstall DaemonSet is a new object (uid %s, was %s): it must replace the install one in place", ds.UID, installDS.UID)
	}
	if cmd := strings.Join(append(installerContainer(ds).Command, installerContainer(ds).Args...), " "); !strings.Contains(cmd, " uninstall ") {
		t.Errorf("uninstall DaemonSet runs %q, want gvisor-installer uninstall", cmd)
	}
	sh.waitPods("a", true, nodes)

	// Not done on any node: Delete keeps waiting and says so.
	sh.eventually("lastError saying the uninstall is not done", func() error {
		cr := sh.runtime("a")
		if le := cr.Status.LastError; le == nil || !strings.Contains(le.Description, "not done on every node yet") {
			return fmt.Errorf("lastError %+v", le)
		}
		return nil
	})
	if cr := sh.runtime("a"); len(cr.Finalizers) == 0 {
		t.Fatalf("the ContainerRuntime lost its finalizer before any node was done")
	}
	t.Logf("waiting: %s", sh.runtime("a").Status.LastError.Description)

	// Two nodes report done, the third disappears: nothing is left to wait for.
	sh.setPodsReady("a", nodes[:2])
	time.Sleep(2 * time.Second)
	if !sh.exists(sh.runtime("a")) {
		t.Fatalf("Delete finished while a node had not reported done")
	}
	must(t, sh.c.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodes[2]}}))
	// Its pod goes with it (in a cluster kubelet or the pod garbage collector delete it; here nothing would, the
	// pod was never bound), which is also what makes the daemonset controller count the nodes again.
	gonePod := sh.pods("a", true)[nodes[2]]
	must(t, client.IgnoreNotFound(sh.c.Delete(ctx, &gonePod)))
	sh.waitGone(&extensionsv1alpha1.ContainerRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: sh.ns, Name: sh.runtimeName("a")}})
	sh.noEvent("UninstallTimedOut") // finished because the nodes were done, not because the bound ran out
	sh.waitNoShootObjects()
}

// TestRemoveFromPoolTimesOut: nodes that never finish the uninstall do not block the pool's removal forever:
// after the uninstall timeout, counted from the deletion, the pool is removed with a warning event that says the
// nodes keep runsc. The shared stack's controller has a long bound, so this test drives an actuator with a
// short one directly (as the library would: Delete again after each RequeueAfterError).
func TestRemoveFromPoolTimesOut(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "uninstalltimeout", "1.34.1")
	const timeout = 5 * time.Second
	a := sh.actuator(containerruntime.Settings{UninstallTimeout: timeout})
	cr := gardenerfixtures.ContainerRuntime(sh.ns, "a", nil, "")
	cluster := sh.clusterWithVersion("1.34.1")
	must(t, a.Reconcile(context.Background(), logr.Discard(), cr, cluster))
	sh.waitPoolHealthy("a")
	sh.createNode("uninstalltimeout-a-0", "a")
	sh.waitPods("a", false, []string{"uninstalltimeout-a-0"})

	start := time.Now()
	deleteWithRequeues(t, a, cr, cluster)
	if took := time.Since(start); took < timeout-time.Second {
		t.Errorf("Delete finished after %s, before the uninstall timeout (%s), although no node was done", took.Round(time.Second), timeout)
	}
	sh.waitNoShootObjects()
	sh.eventually("a warning event UninstallTimedOut", func() error {
		list := &eventsv1.EventList{}
		if err := sh.c.List(context.Background(), list, client.InNamespace(sh.ns)); err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Reason == "UninstallTimedOut" && e.Type == corev1.EventTypeWarning && strings.Contains(e.Note, "keep runsc registered") {
				t.Logf("event: %s", e.Note)
				return nil
			}
		}
		return fmt.Errorf("%d events, none UninstallTimedOut", len(list.Items))
	})
}

// TestShootDeletionSkipsUninstall: when the whole shoot is being deleted its nodes go too, so Delete does not
// roll out the uninstall and does not wait for nodes (which will never report done).
func TestShootDeletionSkipsUninstall(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "shootdeletion", "1.35.0")
	sh.createRuntime("a", "")
	sh.waitOperation("a", "Create", "Succeeded")
	sh.waitPoolHealthy("a")
	sh.createNode("shootdeletion-a-0", "a")
	installDS := sh.daemonSet("a")
	sh.patchShoot(func(shoot map[string]any) {
		shoot["metadata"].(map[string]any)["deletionTimestamp"] = time.Now().UTC().Format(time.RFC3339)
	})

	start := time.Now()
	sh.deleteRuntime("a")
	t.Logf("ContainerRuntime gone %s after deletion", time.Since(start).Round(10*time.Millisecond))
	if ds := installationDS("a"); sh.exists(ds) && ds.Labels[render.ModeLabel] != "" {
		t.Errorf("the shoot's deletion rolled out the uninstall (DaemonSet labels %v)", ds.Labels)
	}
	if ds := installationDS("a"); sh.exists(ds) && ds.Generation != installDS.Generation {
		t.Errorf("the shoot's deletion changed the DaemonSet (generation %d -> %d)", installDS.Generation, ds.Generation)
	}
	sh.waitGone(sh.managedResource(containerruntime.InstallationManagedResourceName("a")))
	sh.waitNoShootObjects()
}

// createNode creates a Node of gVisor worker pool pool (the labels gardenlet gives its machines), deleted when the
// test ends.
func (sh *testShoot) createNode(name, pool string) {
	sh.t.Helper()
	shoot := sh.shoot.DeepCopy()
	shoot.Spec.Provider.Workers = append(shoot.Spec.Provider.Workers, gardenerfixtures.Worker(pool, gardenerfixtures.GVisor(nil)))
	node := gardenerfixtures.Node(shoot, pool, name)
	must(sh.t, sh.c.Create(context.Background(), node))
	sh.t.Cleanup(func() {
		_ = client.IgnoreNotFound(sh.c.Delete(context.Background(), node))
	})
}

// pods returns pool's installation pods (uninstall mode or install mode) by the node the daemonset controller
// made them for (pods are not bound without a scheduler; their node affinity names the node).
func (sh *testShoot) pods(pool string, uninstall bool) map[string]corev1.Pod {
	sh.t.Helper()
	list := &corev1.PodList{}
	must(sh.t, sh.c.List(context.Background(), list, client.InNamespace(metav1.NamespaceSystem),
		client.MatchingLabels{"app.kubernetes.io/name": "gvisor-installation", "app.kubernetes.io/instance": pool}))
	out := map[string]corev1.Pod{}
	for _, p := range list.Items {
		if p.DeletionTimestamp != nil || (p.Labels[render.ModeLabel] == string(render.ModeUninstall)) != uninstall {
			continue
		}
		out[healthcheck.TargetNode(&p)] = p
	}
	return out
}

// waitPods waits until pool has a pod of the mode on each of nodes.
func (sh *testShoot) waitPods(pool string, uninstall bool, nodes []string) {
	sh.t.Helper()
	sh.eventually(fmt.Sprintf("pool %s pods (uninstall=%v) on %v", pool, uninstall, nodes), func() error {
		got := keys(sh.pods(pool, uninstall))
		for _, n := range nodes {
			if !slices.Contains(got, n) {
				return fmt.Errorf("pods on %v", got)
			}
		}
		return nil
	})
}

// setPodsReady plays the kubelet: the uninstall pods of pool on nodes become Ready (the installer wrote its
// ready file after a successful uninstall).
func (sh *testShoot) setPodsReady(pool string, nodes []string) {
	sh.t.Helper()
	pods := sh.pods(pool, true)
	for _, n := range nodes {
		p, ok := pods[n]
		if !ok {
			sh.t.Fatalf("no uninstall pod on node %s", n)
		}
		now := metav1.Now()
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now})
		must(sh.t, sh.c.Status().Update(context.Background(), &p))
	}
}

// patchShoot changes the Shoot in the shoot's Cluster resource (JSON, as gardenlet writes it).
func (sh *testShoot) patchShoot(mutate func(shoot map[string]any)) {
	sh.t.Helper()
	ctx := context.Background()
	cluster := &extensionsv1alpha1.Cluster{}
	must(sh.t, sh.c.Get(ctx, client.ObjectKey{Name: sh.ns}, cluster))
	var shoot map[string]any
	must(sh.t, json.Unmarshal(cluster.Spec.Shoot.Raw, &shoot))
	mutate(shoot)
	raw, err := json.Marshal(shoot)
	must(sh.t, err)
	patch := client.MergeFrom(cluster.DeepCopy())
	cluster.Spec.Shoot.Raw = raw
	must(sh.t, sh.c.Patch(ctx, cluster, patch))
}

// noEvent fails the test if an event with reason exists in the shoot namespace.
func (sh *testShoot) noEvent(reason string) {
	sh.t.Helper()
	list := &eventsv1.EventList{}
	must(sh.t, sh.c.List(context.Background(), list, client.InNamespace(sh.ns)))
	for _, e := range list.Items {
		if e.Reason == reason {
			sh.t.Errorf("unexpected event %s: %s", e.Reason, e.Note)
		}
	}
}
