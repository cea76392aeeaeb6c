// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"
	"github.com/gardener/gardener/pkg/utils/managedresources"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// TestReadinessGate: an actuator with the gate on (what --readiness-gate=true configures) renders, for a shoot on
// Kubernetes 1.30 or later, the ValidatingAdmissionPolicy, the installers' RBAC and the RuntimeClass's ready-label
// selector into the shoot through gardener-resource-manager, and renders none of it for an older shoot. The
// shared stack's controller runs with the gate off, so this test drives a second actuator directly (the library's
// part, finalizers and status, is covered by the other tests); gardener-resource-manager and kube-apiserver are
// the real ones.
func TestReadinessGate(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "readinessgate", "1.31.12")
	a := sh.actuator(containerruntime.Settings{UninstallTimeout: time.Minute, Render: render.Settings{ReadinessGate: true}})
	cr := gardenerfixtures.ContainerRuntime(sh.ns, "a", nil, "")
	cluster := sh.clusterWithVersion
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "gvisor-node-ready-label"}}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "gvisor-node-ready-label"}}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gvisor-installation:node-ready-label"}}
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "gvisor-installation-a"}}
	gateObjects := []client.Object{policy, binding, role, account}

	// Gate on, shoot 1.31: everything lands in the shoot.
	reconcileWithRequeues(t, a, cr, cluster("1.31.12"))
	sh.waitPoolHealthy("a")
	for _, obj := range gateObjects {
		if !sh.exists(obj) {
			t.Errorf("%T %s not in the shoot with the gate on", obj, client.ObjectKeyFromObject(obj))
		}
	}
	if got := sh.runtimeClass().Scheduling.NodeSelector[nodelabel.Key]; got != nodelabel.Value {
		t.Errorf("RuntimeClass nodeSelector[%s] = %q, want %q", nodelabel.Key, got, nodelabel.Value)
	}
	if ds := sh.daemonSet("a"); ds.Spec.Template.Spec.ServiceAccountName != account.Name || !hasArg(ds, "--label-node") {
		t.Errorf("installation DaemonSet: serviceAccountName %q, args %v; want the pool's account and --label-node",
			ds.Spec.Template.Spec.ServiceAccountName, installerContainer(ds).Command)
	}

	// The uninstall keeps the gate (the uninstaller removes the label), then everything goes.
	deleteWithRequeues(t, a, cr, cluster("1.31.12"))
	sh.waitNoShootObjects()
	for _, obj := range gateObjects {
		sh.waitGone(obj)
	}

	// Gate on, shoot 1.29: rendered off, nothing of the gate in the shoot.
	reconcileWithRequeues(t, a, cr, cluster("1.29.15"))
	sh.waitPoolHealthy("a")
	for _, obj := range gateObjects {
		if sh.exists(obj) {
			t.Errorf("%T %s in a 1.29 shoot: the gate needs 1.30", obj, client.ObjectKeyFromObject(obj))
		}
	}
	if sel := sh.runtimeClass().Scheduling.NodeSelector; sel[nodelabel.Key] != "" {
		t.Errorf("RuntimeClass nodeSelector %v requires the ready label in a 1.29 shoot", sel)
	}
	deleteWithRequeues(t, a, cr, cluster("1.29.15"))
}

// deleteWithRequeues calls Delete as the library does: again after a RequeueAfterError, until it succeeds.
func deleteWithRequeues(t *testing.T, a *containerruntime.Actuator, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) {
	t.Helper()
	cr = cr.DeepCopy()
	now := metav1.Now()
	cr.DeletionTimestamp = &now
	deadline := time.Now().Add(waitTimeout)
	for {
		err := a.Delete(context.Background(), logr.Discard(), cr, cluster)
		if err == nil {
			return
		}
		var requeue *reconcilerutils.RequeueAfterError
		if !errors.As(err, &requeue) || time.Now().After(deadline) {
			t.Fatalf("Delete: %v", err)
		}
		// The controller's Delete is woken by its ManagedResources' events and requeues only as a safety net
		// (up to a minute); calling the Actuator directly, this loop has no events and polls instead.
		time.Sleep(min(requeue.RequeueAfter, time.Second))
	}
}

func hasArg(ds *appsv1.DaemonSet, arg string) bool {
	for _, c := range append(ds.Spec.Template.Spec.InitContainers, ds.Spec.Template.Spec.Containers...) {
		for _, a := range append(c.Command, c.Args...) {
			if a == arg || strings.HasPrefix(a, arg+"=") {
				return true
			}
		}
	}
	return false
}

// actuator returns an Actuator like the one the controller builds (for pool "a"), on the shared control plane, with
// settings s (20s delete wait unless set), recording events to the API server.
func (sh *testShoot) actuator(s containerruntime.Settings) *containerruntime.Actuator {
	sh.t.Helper()
	renderer, err := render.Load(version.Version, os.Getenv(imagevector.OverrideEnv))
	must(sh.t, err)
	cs, err := kubernetes.NewForConfig(sh.stack.Config)
	must(sh.t, err)
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
	stop := make(chan struct{})
	broadcaster.StartRecordingToSink(stop)
	sh.t.Cleanup(func() { close(stop); broadcaster.Shutdown() })
	scheme := runtime.NewScheme()
	must(sh.t, extensionscontroller.AddToScheme(scheme))

	if s.DeleteWaitTimeout == 0 {
		s.DeleteWaitTimeout = 20 * time.Second
	}
	o := containerruntime.ActuatorOptions{Client: sh.c, APIReader: sh.c, Renderer: renderer, Settings: s,
		Recorder: broadcaster.NewRecorder(scheme, "integration-test")}
	// No ContainerRuntime object owns what this actuator deploys: if the test stops early, remove it here
	// (before the shoot's cleanup, which runs later) so that the next test starts clean.
	sh.t.Cleanup(func() {
		for _, name := range []string{containerruntime.InstallationManagedResourceName("a"), containerruntime.ManagedResourceName} {
			if err := managedresources.DeleteForShoot(context.Background(), sh.c, sh.ns, name); err != nil {
				sh.t.Errorf("cleanup: deleting ManagedResource %s: %v", name, err)
			}
		}
	})
	return containerruntime.NewActuator(o)
}

// clusterWithVersion is the Cluster the library passes for the shoot on Kubernetes version v: gardenlet's Cluster,
// decoded.
func (sh *testShoot) clusterWithVersion(v string) *extensionscontroller.Cluster {
	shoot := sh.shoot.DeepCopy()
	shoot.Spec.Kubernetes.Version = v
	return gardenerfixtures.DecodedCluster(shoot)
}
