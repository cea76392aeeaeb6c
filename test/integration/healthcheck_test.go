// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/utils/managedresources"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// TestHealthConditions: the healthcheck controller (running in the test stack like every other controller, with
// --healthcheck-sync-period=2s) writes SystemComponentsHealthy and EveryNodeReady on a pool's ContainerRuntime:
// True when the installation is Ready on every node; EveryNodeReady False naming the two failing nodes of three
// with the installer's termination message and the kubelet's reason; SystemComponentsHealthy False when a
// ManagedResource is missing; "being removed" while the pool is uninstalled; and nothing left once it is gone.
func TestHealthConditions(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "health", "1.33.4")
	nodes := []string{"health-a-0", "health-a-1", "health-a-2"}
	sh.healthCheckedPool("a", nodes...)

	// Healthy pool: every node's installation pod Ready.
	for _, n := range nodes {
		sh.setInstallPodStatus("a", n, true, corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}, corev1.ContainerState{})
	}
	sh.waitHealthCondition("a", gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionTrue)
	sh.waitHealthCondition("a", gardencorev1beta1.ShootSystemComponentsHealthy, gardencorev1beta1.ConditionTrue)

	// Two of three nodes fail: one whose containerd the installer refuses (its termination message, crash
	// looping), one that cannot pull the image.
	const tooOld = "containerd 1.6.20 is not supported (minimum containerd 1.7.0); gvisor-installer install failed"
	sh.setInstallPodStatus("a", nodes[1], false,
		corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s restarting failed container"}},
		corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error", Message: tooOld + "\n"}})
	sh.setInstallPodStatus("a", nodes[2], false,
		corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "registry.example/installer:v0"`}},
		corev1.ContainerState{})
	c := sh.waitHealthCondition("a", gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionFalse)
	for _, want := range []string{`not ready on 2 of 3 nodes of worker pool "a"`, nodes[1] + " (CrashLoopBackOff: " + tooOld + ")", nodes[2] + " (ImagePullBackOff: "} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("EveryNodeReady message does not contain %q:\n%s", want, c.Message)
		}
	}
	if strings.Contains(c.Message, nodes[0]) {
		t.Errorf("EveryNodeReady names the Ready node %s:\n%s", nodes[0], c.Message)
	}
	t.Logf("EveryNodeReady: %s", c.Message)

	// The nodes recover; then the shoot-wide ManagedResource goes missing.
	for _, n := range nodes[1:] {
		sh.setInstallPodStatus("a", n, true, corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}, corev1.ContainerState{})
	}
	sh.waitHealthCondition("a", gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionTrue)
	must(t, managedresources.DeleteForShoot(context.Background(), sh.c, sh.ns, containerruntime.ManagedResourceName))
	sh.waitGone(sh.managedResource(containerruntime.ManagedResourceName))
	c = sh.waitHealthCondition("a", gardencorev1beta1.ShootSystemComponentsHealthy, gardencorev1beta1.ConditionFalse)
	if !strings.Contains(c.Message, containerruntime.ManagedResourceName) {
		t.Errorf("SystemComponentsHealthy does not name the missing ManagedResource: %s", c.Message)
	}
	t.Logf("SystemComponentsHealthy: %s", c.Message)
	sh.updateRuntime("a", v1beta1constants.GardenerOperationReconcile, nil) // gardenlet's next reconcile restores it
	sh.waitOperation("a", "Reconcile", "Succeeded")
	sh.waitHealthCondition("a", gardencorev1beta1.ShootSystemComponentsHealthy, gardencorev1beta1.ConditionTrue)

	// Removal from the pool: while the uninstall rolls out, the conditions say so.
	must(t, sh.c.Delete(context.Background(), sh.runtime("a")))
	for _, ct := range []gardencorev1beta1.ConditionType{gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ShootSystemComponentsHealthy} {
		c := sh.waitHealthCondition("a", ct, gardencorev1beta1.ConditionProgressing)
		if c.Reason != containerruntime.ReasonUninstalling || !strings.Contains(c.Message, "being removed") {
			t.Errorf("%s during the uninstall: %s %s", ct, c.Reason, c.Message)
		}
	}
	// The uninstall rolls node by node (maxUnavailable 1): each uninstall pod reports done as it comes.
	cr := &extensionsv1alpha1.ContainerRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: sh.ns, Name: sh.runtimeName("a")}}
	sh.eventually("the uninstall done on every node and the ContainerRuntime gone", func() error {
		for n, p := range sh.pods("a", true) {
			if !isReady(&p) {
				sh.setPodsReady("a", []string{n})
			}
		}
		if sh.exists(cr) {
			return fmt.Errorf("ContainerRuntime still there: %v", cr.Status.LastError)
		}
		return nil
	})
	// Nothing is left behind: no ContainerRuntime of the shoot carries a condition about pool a.
	list := &extensionsv1alpha1.ContainerRuntimeList{}
	must(t, sh.c.List(context.Background(), list, client.InNamespace(sh.ns)))
	for _, item := range list.Items {
		t.Errorf("ContainerRuntime %s left behind with conditions %v", item.Name, item.Status.Conditions)
	}
	sh.waitNoShootObjects()
}

// TestHealthWithoutNodes: a shoot whose pool has no nodes yet gives EveryNodeReady True; one without a shoot
// access secret gives Unknown; the controller keeps running either way.
func TestHealthWithoutNodes(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "healthnonodes", "1.32.8")
	sh.createRuntime("a", "")
	sh.waitOperation("a", "Create", "Succeeded")
	c := sh.waitHealthCondition("a", gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionTrue)
	t.Logf("EveryNodeReady without nodes: %s %s", c.Status, c.Message)

	must(t, client.IgnoreNotFound(sh.c.Delete(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: sh.ns, Name: v1beta1constants.SecretNameGardener}})))
	c = sh.waitHealthCondition("a", gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionUnknown)
	t.Logf("EveryNodeReady without shoot access: %s", c.Message)
	if code, body, err := envtest.HTTPGet(context.Background(), sh.stack.HealthURL+"/healthz"); err != nil || code != http.StatusOK {
		t.Errorf("controller /healthz: %d %s %v", code, body, err)
	}
	// Back, as gardenlet restores it: the Delete confirms the uninstall in the shoot through it.
	sh.createShootAccessSecret()
	sh.deleteRuntime("a")
	sh.waitNoShootObjects()
}

// healthCheckedPool creates pool (newShoot created the shoot access secret the health checks read it through), waits for
// it to be reconciled and its ManagedResources healthy, then registers nodes in it and waits for an install pod on
// each.
func (sh *testShoot) healthCheckedPool(pool string, nodes ...string) {
	sh.t.Helper()
	sh.createRuntime(pool, "")
	sh.waitOperation(pool, "Create", "Succeeded")
	sh.waitPoolHealthy(pool)
	for _, n := range nodes {
		sh.createNode(n, pool)
	}
	sh.waitPods(pool, false, nodes)
}

// createShootAccessSecret creates the secret "gardener" gardenlet keeps in every shoot namespace, through which
// the health checks and the Delete's confirmation of the uninstall read the shoot (here the same API server, as
// admin). newShoot calls it.
func (sh *testShoot) createShootAccessSecret() {
	sh.t.Helper()
	kubeconfig, err := os.ReadFile(sh.stack.KubeconfigPath)
	must(sh.t, err)
	secret := gardenerfixtures.ShootAccessSecret(sh.ns, kubeconfig)
	must(sh.t, sh.c.Create(context.Background(), secret))
	sh.t.Cleanup(func() { _ = client.IgnoreNotFound(sh.c.Delete(context.Background(), secret)) })
}

// setInstallPodStatus plays the kubelet for pool's install pod on node: its Ready condition and its containers'
// states. Ready: the installer init container exited 0 and the idle container has state. Not ready: the installer
// init container has state and last (where its termination message is), the idle container waits for it.
func (sh *testShoot) setInstallPodStatus(pool, node string, ready bool, state, last corev1.ContainerState) {
	sh.t.Helper()
	p, ok := sh.pods(pool, false)[node]
	if !ok {
		sh.t.Fatalf("no install pod on node %s", node)
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	now := metav1.Now()
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status, LastTransitionTime: now}}
	var restarts int32
	if last.Terminated != nil {
		restarts = 3
	}
	installer := corev1.ContainerStatus{Name: "installer", Image: p.Spec.InitContainers[0].Image, State: state, LastTerminationState: last, RestartCount: restarts}
	idle := corev1.ContainerStatus{Name: "idle", Image: p.Spec.Containers[0].Image, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}
	if ready {
		installer.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now}}
		idle.State, idle.Ready = state, true
	}
	p.Status.InitContainerStatuses = []corev1.ContainerStatus{installer}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{idle}
	must(sh.t, sh.c.Status().Update(context.Background(), &p))
}

// waitHealthCondition waits until pool's ContainerRuntime has condition t with status and returns it.
func (sh *testShoot) waitHealthCondition(pool string, t gardencorev1beta1.ConditionType, status gardencorev1beta1.ConditionStatus) gardencorev1beta1.Condition {
	sh.t.Helper()
	var got gardencorev1beta1.Condition
	sh.eventually(fmt.Sprintf("ContainerRuntime %s: condition %s %s", sh.runtimeName(pool), t, status), func() error {
		c := v1beta1helper.GetCondition(sh.runtime(pool).Status.Conditions, t)
		if c == nil {
			return fmt.Errorf("no condition %s", t)
		}
		if c.Status != status {
			return fmt.Errorf("%s is %s: %s %s", t, c.Status, c.Reason, c.Message)
		}
		got = *c
		return nil
	})
	return got
}

// isReady is the pod's Ready condition.
func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
