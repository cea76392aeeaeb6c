// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

func yamlToJSON(t *testing.T, y string) []byte {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(y))
	must(t, err)
	return js
}

// daemonSet waits for the installation DaemonSet of pool in the "shoot" and returns it.
func (sh *testShoot) daemonSet(pool string) *appsv1.DaemonSet {
	sh.t.Helper()
	ds := &appsv1.DaemonSet{}
	sh.eventually("DaemonSet kube-system/gvisor-installation-"+pool, func() error {
		return sh.c.Get(context.Background(), client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "gvisor-installation-" + pool}, ds)
	})
	return ds
}

// runtimeClass waits for the RuntimeClass gvisor in the "shoot" and returns it.
func (sh *testShoot) runtimeClass() *nodev1.RuntimeClass {
	sh.t.Helper()
	rc := &nodev1.RuntimeClass{}
	sh.eventually("RuntimeClass gvisor", func() error {
		return sh.c.Get(context.Background(), client.ObjectKey{Name: "gvisor"}, rc)
	})
	return rc
}

// exists reports whether obj (by key) exists now.
func (sh *testShoot) exists(obj client.Object) bool {
	sh.t.Helper()
	err := sh.c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
	if client.IgnoreNotFound(err) != nil {
		sh.t.Fatal(err)
	}
	return err == nil
}

func installationDS(pool string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "gvisor-installation-" + pool}}
}

func gvisorRuntimeClass() *nodev1.RuntimeClass {
	return &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}}
}

func (sh *testShoot) managedResource(name string) *resourcesv1alpha1.ManagedResource {
	return &resourcesv1alpha1.ManagedResource{ObjectMeta: metav1.ObjectMeta{Namespace: sh.ns, Name: name}}
}

// waitHealthy waits until gardener-resource-manager reports the ManagedResource applied, healthy and not
// progressing for its current generation, and returns it.
func (sh *testShoot) waitHealthy(name string) *resourcesv1alpha1.ManagedResource {
	sh.t.Helper()
	mr := sh.managedResource(name)
	sh.eventually("ManagedResource "+name+" applied, healthy and not progressing", func() error {
		if err := sh.c.Get(context.Background(), client.ObjectKeyFromObject(mr), mr); err != nil {
			return err
		}
		if mr.Status.ObservedGeneration != mr.Generation {
			return fmt.Errorf("observedGeneration %d, generation %d", mr.Status.ObservedGeneration, mr.Generation)
		}
		for cond, want := range map[gardencorev1beta1.ConditionType]gardencorev1beta1.ConditionStatus{
			resourcesv1alpha1.ResourcesApplied:     gardencorev1beta1.ConditionTrue,
			resourcesv1alpha1.ResourcesHealthy:     gardencorev1beta1.ConditionTrue,
			resourcesv1alpha1.ResourcesProgressing: gardencorev1beta1.ConditionFalse,
		} {
			c := v1beta1helper.GetCondition(mr.Status.Conditions, cond)
			if c == nil || c.Status != want {
				return fmt.Errorf("condition %s is %v, want %s", cond, c, want)
			}
		}
		return nil
	})
	return mr
}

// waitPoolHealthy waits until both of the pool's ManagedResources are healthy.
func (sh *testShoot) waitPoolHealthy(pool string) {
	sh.t.Helper()
	sh.waitHealthy(containerruntime.InstallationManagedResourceName(pool))
	sh.waitHealthy(containerruntime.ManagedResourceName)
}

// secrets returns the Secrets in the shoot namespace by name, without gardenlet's shoot access secret (newShoot),
// which is not the extension's.
func (sh *testShoot) secrets() map[string]corev1.Secret {
	sh.t.Helper()
	list := &corev1.SecretList{}
	must(sh.t, sh.c.List(context.Background(), list, client.InNamespace(sh.ns)))
	out := map[string]corev1.Secret{}
	for _, s := range list.Items {
		if s.Name == v1beta1constants.SecretNameGardener {
			continue
		}
		out[s.Name] = s
	}
	return out
}

var errUnchanged = fmt.Errorf("unchanged")

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// controllerBusy returns the containerruntime controller's queue depth plus active workers (its /metrics).
func (sh *testShoot) controllerBusy() int {
	sh.t.Helper()
	code, body, err := envtest.HTTPGet(context.Background(), sh.stack.MetricsURL+"/metrics")
	if err != nil || code != http.StatusOK {
		sh.t.Fatalf("GET /metrics: %d %v", code, err)
	}
	busy, found := 0, map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		name, rest, ok := strings.Cut(line, "{")
		if !ok || (name != "workqueue_depth" && name != "controller_runtime_active_workers") || !strings.Contains(rest, `controller="containerruntime"`) {
			continue
		}
		// One series per name, or per name and priority where the work queue has priorities: the sum counts.
		_, v, _ := strings.Cut(rest, "} ")
		n, err := strconv.ParseFloat(v, 64)
		must(sh.t, err)
		busy += int(n)
		found[name] = true
	}
	if len(found) != 2 {
		sh.t.Fatalf("/metrics: found %v of workqueue_depth and controller_runtime_active_workers for containerruntime", keys(found))
	}
	return busy
}

// waitControllerIdle waits until the controller has nothing queued and nothing in flight, three checks in a row.
func (sh *testShoot) waitControllerIdle() {
	sh.t.Helper()
	idle := 0
	sh.eventually("the containerruntime controller to be idle", func() error {
		if sh.controllerBusy() > 0 {
			idle = 0
			return fmt.Errorf("busy")
		}
		if idle++; idle < 3 {
			return fmt.Errorf("idle %d time(s)", idle)
		}
		return nil
	})
}
