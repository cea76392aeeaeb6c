// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	securityv1alpha1 "github.com/gardener/gardener/pkg/apis/security/v1alpha1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	gardenerenvtest "github.com/gardener/gardener/test/envtest"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission/admissiontest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/admission"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

const (
	projectNS   = "garden-dev"
	webhookName = "validate-shoot.gvisor.runtime.extensions.gardener.cloud"
	deniedBy    = `admission webhook "` + webhookName + `" denied the request: `
)

// disabledPlugins are gardener-apiserver admission plugins that need what a garden without controllers lacks:
// DeletionConfirmation (an annotation ritual unrelated to this test), ResourceReferenceManager (checks referenced
// Secrets' owners and quotas), ExtensionValidator (needs a ControllerRegistration for every extension type the
// Shoot names) and ShootQuotaValidator (Quotas). ShootValidator (CloudProfile, machine image CRI support, Project)
// and ExtensionLabels (the label the webhook's objectSelector matches) stay on.
const disabledPlugins = "DeletionConfirmation,ResourceReferenceManager,ExtensionValidator,ShootQuotaValidator"

// TestRealGardenerAPIServer registers the in-process webhook with a real gardener-apiserver (Gardener's
// test/envtest: etcd, kube-apiserver, gardener-apiserver in-process) through the ValidatingWebhookConfiguration the
// application chart renders, and applies real Shoots.
func TestRealGardenerAPIServer(t *testing.T) {
	realcomponents.KubebuilderAssets(t) // envtest reads KUBEBUILDER_ASSETS itself
	helm := realcomponents.Helm(t)

	w := admission.Start(t)
	vwc := admission.RenderWebhookConfiguration(t, helm, w)

	env := &gardenerenvtest.GardenerTestEnvironment{
		Environment:       &envtest.Environment{},
		GardenerAPIServer: &gardenerenvtest.GardenerAPIServer{Args: []string{"--disable-admission-plugins=" + disabledPlugins}},
	}
	start := time.Now()
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting etcd, kube-apiserver and gardener-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping the garden: %v", err)
		}
	})
	t.Logf("garden up in %s", time.Since(start).Round(time.Millisecond))

	c, err := client.New(cfg, client.Options{Scheme: kubernetes.GardenScheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	createGardenFixtures(ctx, t, c)
	if err := c.Create(ctx, vwc); err != nil {
		t.Fatalf("registering the rendered ValidatingWebhookConfiguration: %v", err)
	}
	waitUntilWebhookActive(ctx, t, c)

	pc := "spec.provider.workers[0].cri.containerRuntimes[0].providerConfig"
	allowed := "cpu-num-from-quota, debug, debug-log, directfs, file-access, net-raw, nvproxy, nvproxy-allowed-driver-capabilities, overlay2, panic-signal, platform, strace, watchdog-action"

	t.Run("invalid Shoots are refused with the Shoot's field paths", func(t *testing.T) {
		for _, tc := range []struct {
			name, providerConfig, want string
		}{
			{"misspelt flag", `{configFlags: {net-raww: "true"}}`,
				`Shoot.core.gardener.cloud "bad" is invalid: ` + pc + `.configFlags[net-raww]: Invalid value: "true": unknown or not allowed runsc flag "net-raww"; allowed flags: ` + allowed},
			{"unquoted boolean and a bad platform", `{configFlags: {debug: yes, platform: kvm2}}`,
				`Shoot.core.gardener.cloud "bad" is invalid: [` + pc + `.configFlags[debug]: Invalid value: true: must be a string: quote the value, for example debug: "true", ` +
					pc + `.configFlags[platform]: Unsupported value: "kvm2": supported values: "kvm", "ptrace", "systrap"]`},
			{"wrong kind", `{kind: RuntimeConfig}`,
				`Shoot.core.gardener.cloud "bad" is invalid: ` + pc + `.kind: Unsupported value: "RuntimeConfig": supported values: "GVisorConfiguration"`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := w.Requests(t)
				err := c.Create(ctx, gvisorShoot(t, "bad", tc.providerConfig))
				if err == nil {
					t.Fatal("accepted")
				}
				if !apierrors.IsInvalid(err) {
					t.Errorf("want a 422 Invalid error, got %#v", err)
				}
				if err.Error() != deniedBy+tc.want {
					t.Fatalf("error\n%v\nwant\n%s", err, deniedBy+tc.want)
				}
				if got := w.Requests(t) - before; got != 1 {
					t.Errorf("the webhook answered %d requests, want 1", got)
				}
			})
		}
	})

	t.Run("kubectl prints the operator guide's example", func(t *testing.T) {
		checkGuideRefusal(t, env.Environment)
	})

	t.Run("field-written providerConfigs are accepted", func(t *testing.T) {
		configs := admissiontest.FieldProviderConfigs(t)
		before := w.Requests(t)
		for i, fc := range configs {
			s := gvisorShoot(t, fmt.Sprintf("field-%d", i), "")
			if fc.JSON != nil {
				s.Spec.Provider.Workers[0].CRI.ContainerRuntimes[0].ProviderConfig = &runtime.RawExtension{Raw: fc.JSON}
			}
			if err := c.Create(ctx, s); err != nil {
				t.Errorf("%s: refused: %v", fc.Name, err)
			}
		}
		if got := w.Requests(t) - before; got != len(configs) {
			t.Errorf("the webhook answered %d requests, want %d", got, len(configs))
		}
	})

	t.Run("create, update and delete a gVisor Shoot", func(t *testing.T) {
		s := gvisorShoot(t, "gvisor", `{configFlags: {net-raw: "true"}}`)
		before := w.Requests(t)
		if err := c.Create(ctx, s); err != nil {
			t.Fatalf("valid gVisor Shoot refused: %v", err)
		}
		if s.Labels["containerruntime.extensions.gardener.cloud/gvisor"] != "true" {
			t.Errorf("gardener-apiserver did not add the gvisor extension label: %v", s.Labels)
		}
		if got := w.Requests(t) - before; got != 1 {
			t.Errorf("create: the webhook answered %d requests, want 1", got)
		}

		// An update to a bad config is refused...
		bad := s.DeepCopy()
		bad.Spec.Provider.Workers[0].CRI.ContainerRuntimes[0].ProviderConfig = &runtime.RawExtension{Raw: []byte(`{"configFlags":{"net-raw":"yes"}}`)}
		err := c.Update(ctx, bad)
		want := deniedBy + `Shoot.core.gardener.cloud "gvisor" is invalid: ` + pc + `.configFlags[net-raw]: Unsupported value: "yes": supported values: "false", "true"`
		if err == nil || err.Error() != want {
			t.Fatalf("update to a bad config: error\n%v\nwant\n%s", err, want)
		}
		// ...an unrelated one passes (sent, not judged).
		if err := c.Get(ctx, client.ObjectKeyFromObject(s), s); err != nil {
			t.Fatal(err)
		}
		metav1.SetMetaDataAnnotation(&s.ObjectMeta, "example.com/note", "unrelated")
		if err := c.Update(ctx, s); err != nil {
			t.Fatalf("unrelated update refused: %v", err)
		}

		// Delete is not registered with the webhook: it passes and sends nothing.
		before = w.Requests(t)
		metav1.SetMetaDataAnnotation(&s.ObjectMeta, "confirmation.gardener.cloud/deletion", "true")
		if err := c.Update(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(ctx, s); err != nil {
			t.Fatalf("delete refused: %v", err)
		}
		if got := w.Requests(t) - before; got != 1 { // the annotation update only
			t.Errorf("delete: the webhook answered %d requests, want 1 (the annotation update)", got)
		}
	})

	t.Run("a Shoot without gVisor is never sent to the webhook", func(t *testing.T) {
		s := gvisorShoot(t, "plain", "")
		s.Spec.Provider.Workers[0].CRI.ContainerRuntimes = nil
		before := w.Requests(t)
		if err := c.Create(ctx, s); err != nil {
			t.Fatalf("Shoot without gVisor refused: %v", err)
		}
		metav1.SetMetaDataAnnotation(&s.ObjectMeta, "confirmation.gardener.cloud/deletion", "true")
		if err := c.Update(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(ctx, s); err != nil {
			t.Fatal(err)
		}
		if got := w.Requests(t) - before; got != 0 {
			t.Errorf("the webhook answered %d requests for a Shoot without gVisor, want 0", got)
		}
	})
}

// createGardenFixtures creates the least a real gardener-apiserver needs to accept a Shoot in projectNS: the
// project's namespace and Project, a CloudProfile whose machine image supports containerd with gvisor, and a
// CredentialsBinding with its Secret.
func createGardenFixtures(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: projectNS, Labels: map[string]string{
			"gardener.cloud/role": "project", "project.gardener.cloud/name": "dev"}}},
		&gardencorev1beta1.Project{ObjectMeta: metav1.ObjectMeta{Name: "dev"}, Spec: gardencorev1beta1.ProjectSpec{Namespace: ptr(projectNS)}},
		&gardencorev1beta1.CloudProfile{ObjectMeta: metav1.ObjectMeta{Name: "local"}, Spec: gardencorev1beta1.CloudProfileSpec{
			Type:       "local",
			Kubernetes: gardencorev1beta1.KubernetesSettings{Versions: []gardencorev1beta1.ExpirableVersion{{Version: "1.33.0"}}},
			MachineImages: []gardencorev1beta1.MachineImage{{Name: "local", Versions: []gardencorev1beta1.MachineImageVersion{{
				ExpirableVersion: gardencorev1beta1.ExpirableVersion{Version: "1.0.0"},
				CRI: []gardencorev1beta1.CRI{{Name: gardencorev1beta1.CRINameContainerD,
					ContainerRuntimes: []gardencorev1beta1.ContainerRuntime{{Type: "gvisor"}}}},
				Architectures: []string{"amd64"},
			}}}},
			MachineTypes: []gardencorev1beta1.MachineType{{Name: "local", CPU: resourceQuantity("1"), GPU: resourceQuantity("0"),
				Memory: resourceQuantity("1Gi"), Usable: ptr(true), Architecture: ptr("amd64")}},
			Regions: []gardencorev1beta1.Region{{Name: "local"}},
		}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "local", Namespace: projectNS}},
		&securityv1alpha1.CredentialsBinding{ObjectMeta: metav1.ObjectMeta{Name: "local", Namespace: projectNS},
			Provider:       securityv1alpha1.CredentialsBindingProvider{Type: "local"},
			CredentialsRef: corev1.ObjectReference{APIVersion: "v1", Kind: "Secret", Name: "local", Namespace: projectNS}},
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

// waitUntilWebhookActive dry-runs an invalid gVisor Shoot until gardener-apiserver's webhook plugin has seen the
// ValidatingWebhookConfiguration (its informer syncs asynchronously).
func waitUntilWebhookActive(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	for {
		err := c.Create(ctx, gvisorShoot(t, "probe", `{configFlags: {net-raww: "true"}}`), client.DryRunAll)
		if err != nil && strings.HasPrefix(err.Error(), deniedBy) {
			return
		}
		if err != nil && !strings.Contains(err.Error(), "net-raww") {
			t.Logf("probe Shoot: %v", err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the webhook never refused the probe Shoot (last: %v)", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
