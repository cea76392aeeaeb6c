// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"fmt"
	"reflect"
	"testing"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
)

// TestLifecycle walks a shoot through the life of its gVisor pools, as gardenlet drives it.
func TestLifecycle(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "lifecycle", "1.34.1")

	// One pool: its DaemonSet and the RuntimeClass land in the shoot, accepted by the API server.
	sh.createRuntime("a", "")
	sh.waitOperation("a", "Create", "Succeeded")
	sh.waitPoolHealthy("a")
	sh.daemonSet("a")
	rc := sh.runtimeClass()

	// Nothing changed: nothing written.
	sh.assertNoOpReconcile(t, "a")

	// A second pool: a second DaemonSet, still one RuntimeClass (unchanged).
	sh.createRuntime("b", `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{"net-raw":"true"}}`)
	sh.waitOperation("b", "Create", "Succeeded")
	sh.waitPoolHealthy("b")
	dsB := sh.daemonSet("b")
	if rc2 := sh.runtimeClass(); rc2.ResourceVersion != rc.ResourceVersion {
		t.Errorf("RuntimeClass changed when pool b was added (resourceVersion %s -> %s)", rc.ResourceVersion, rc2.ResourceVersion)
	}

	// Changing pool a's runsc flags changes pool a's DaemonSet template (config checksum) and nothing else.
	dsA := sh.daemonSet("a")
	sh.updateRuntime("a", "reconcile", func(cr *extensionsv1alpha1.ContainerRuntime) {
		cr.Spec.ProviderConfig = &runtime.RawExtension{Raw: yamlToJSON(t, `
apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
kind: GVisorConfiguration
configFlags:
  net-raw: "true"
  platform: systrap
`)}
	})
	sh.waitOperation("a", "Reconcile", "Succeeded")
	sh.waitPoolHealthy("a")
	var dsA2 = dsA
	sh.eventually("pool a's DaemonSet template to change", func() error {
		dsA2 = sh.daemonSet("a")
		if dsA2.Generation == dsA.Generation {
			return errUnchanged
		}
		return nil
	})
	if reflect.DeepEqual(dsA.Spec.Template.Annotations, dsA2.Spec.Template.Annotations) {
		t.Errorf("pool a's pod template annotations did not change with the flags: %v", dsA2.Spec.Template.Annotations)
	}
	if !reflect.DeepEqual(dsA.Spec.Template.Spec, dsA2.Spec.Template.Spec) {
		t.Logf("pool a's pod spec changed too (allowed, the checksum is what must change)")
	}
	if got := sh.daemonSet("b"); got.ResourceVersion != dsB.ResourceVersion {
		t.Errorf("pool b's DaemonSet changed when pool a's flags changed")
	}
	if got := sh.runtimeClass(); got.ResourceVersion != rc.ResourceVersion {
		t.Errorf("the RuntimeClass changed when pool a's flags changed")
	}

	// Deleting pool a removes its DaemonSet and ManagedResource; the RuntimeClass stays for pool b.
	sh.deleteRuntime("a")
	if sh.exists(installationDS("a")) {
		t.Errorf("pool a's DaemonSet still exists after its ContainerRuntime is gone")
	}
	if sh.exists(sh.managedResource(containerruntime.InstallationManagedResourceName("a"))) {
		t.Errorf("pool a's ManagedResource still exists after its ContainerRuntime is gone")
	}
	if !sh.exists(gvisorRuntimeClass()) || !sh.exists(installationDS("b")) {
		t.Fatalf("deleting pool a removed the RuntimeClass or pool b's DaemonSet")
	}

	// Deleting the last pool removes everything. Secrets go with their ManagedResource, and the one that pool
	// a's flag change replaced is collected by gardener-resource-manager's garbage collector.
	sh.deleteRuntime("b")
	sh.waitNoShootObjects()
	sh.eventually("no Secrets left in the shoot namespace", func() error {
		if left := sh.secrets(); len(left) > 0 {
			return fmt.Errorf("%d left: %v", len(left), keys(left))
		}
		return nil
	})
}
