// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
)

const badProviderConfig = `
apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
kind: GVisorConfiguration
configFlags:
  net-raw: "true"
  bogus-flag: "1"
`

// TestBadProviderConfig: a providerConfig the renderer rejects ends in lastError with ERR_CONFIGURATION_PROBLEM
// and a message naming the field, and nothing is written: neither for a new pool nor over a working one.
func TestBadProviderConfig(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "badconfig", "1.31.12")

	// A new pool with a bad providerConfig: no ManagedResource at all.
	sh.createRuntime("bad", badProviderConfig)
	cr := sh.waitOperation("bad", "Create", "Error")
	assertConfigurationProblem(t, cr, "providerConfig.configFlags[bogus-flag]")
	for _, name := range []string{containerruntime.ManagedResourceName, containerruntime.InstallationManagedResourceName("bad")} {
		if sh.exists(sh.managedResource(name)) {
			t.Errorf("ManagedResource %s was created for a ContainerRuntime with a bad providerConfig", name)
		}
	}
	sh.deleteRuntime("bad")

	// A working pool whose providerConfig turns bad: the deployed ManagedResources and Secrets stay as they were.
	sh.createRuntime("good", "")
	sh.waitOperation("good", "Create", "Succeeded")
	sh.waitPoolHealthy("good")
	mr := sh.waitHealthy(containerruntime.InstallationManagedResourceName("good"))
	secretsBefore := keys(sh.secrets())
	mark := sh.auditMark()

	sh.updateRuntime("good", "reconcile", func(cr *extensionsv1alpha1.ContainerRuntime) {
		cr.Spec.ProviderConfig = &runtime.RawExtension{Raw: yamlToJSON(t, badProviderConfig)}
	})
	cr = sh.waitOperation("good", "Reconcile", "Error")
	assertConfigurationProblem(t, cr, "providerConfig.configFlags[bogus-flag]")
	for _, e := range sh.controllerWritesSince(mark) {
		if e.ObjectRef.Resource != "containerruntimes" && e.ObjectRef.Resource != "events" {
			t.Errorf("a reconcile with a bad providerConfig wrote %s", e)
		}
	}
	after := sh.managedResource(mr.Name)
	must(t, sh.c.Get(context.Background(), client.ObjectKeyFromObject(after), after))
	if after.Generation != mr.Generation || !slices.Equal(after.Spec.SecretRefs, mr.Spec.SecretRefs) {
		t.Errorf("ManagedResource %s changed: generation %d -> %d, secretRefs %v -> %v", mr.Name, mr.Generation, after.Generation, mr.Spec.SecretRefs, after.Spec.SecretRefs)
	}
	if secretsAfter := keys(sh.secrets()); !slices.Equal(secretsBefore, secretsAfter) {
		t.Errorf("Secrets changed: %v -> %v", secretsBefore, secretsAfter)
	}
}

func assertConfigurationProblem(t *testing.T, cr *extensionsv1alpha1.ContainerRuntime, field string) {
	t.Helper()
	le := cr.Status.LastError
	if le == nil {
		t.Fatalf("ContainerRuntime %s: no lastError", cr.Name)
	}
	if !slices.Contains(le.Codes, gardencorev1beta1.ErrorConfigurationProblem) {
		t.Errorf("lastError codes %v, want %s", le.Codes, gardencorev1beta1.ErrorConfigurationProblem)
	}
	if !strings.Contains(le.Description, field) {
		t.Errorf("lastError %q does not name %s", le.Description, field)
	}
	t.Logf("lastError: codes %v: %s", le.Codes, le.Description)
}

// TestTestImageTagIgnored: testImageTag from the field's extension still decodes, has no effect on the
// installation image, and the shoot's operators are told so with a warning event.
func TestTestImageTagIgnored(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "testimagetag", "1.32.8")
	sh.createRuntime("pool", `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","testImageTag":"my-test-build"}`)
	sh.waitOperation("pool", "Create", "Succeeded")
	ds := sh.daemonSet("pool")
	for _, c := range append(ds.Spec.Template.Spec.InitContainers, ds.Spec.Template.Spec.Containers...) {
		if strings.Contains(c.Image, "my-test-build") {
			t.Errorf("container %s uses the shoot owner's testImageTag: %s", c.Name, c.Image)
		}
	}
	sh.eventually("warning event TestImageTagIgnored", func() error {
		events := &corev1.EventList{}
		if err := sh.c.List(context.Background(), events, client.InNamespace(sh.ns)); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.Reason == "TestImageTagIgnored" && e.Type == corev1.EventTypeWarning && strings.Contains(e.Message, "my-test-build") {
				return nil
			}
		}
		return errUnchanged
	})
}
