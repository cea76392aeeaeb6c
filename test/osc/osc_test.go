// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package osc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/controllerutils"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// mwcName is the MutatingWebhookConfiguration the library registers for the extension (gardener-extension-<name>).
const mwcName = "gardener-extension-runtime-gvisor"

type env struct {
	c       client.Client
	ensurer *oscwebhook.Ensurer
	// stop ends the extension (its webhook server), leaving its registration in place; port is the server's.
	stop func()
	port int
}

// start brings up the control plane and the extension in mode with only its webhook (controllers off), registered
// in url mode on a free loopback port.
func start(t *testing.T, mode delivery.Mode) *env {
	t.Helper()
	assets := realcomponents.KubebuilderAssets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	cp, err := envtest.Start(ctx, envtest.Options{AssetsDir: assets})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	})
	scheme := runtime.NewScheme()
	testutil.Must(t, extensionscontroller.AddToScheme(scheme))
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	testutil.Must(t, err)

	t.Setenv("IMAGEVECTOR_OVERWRITE", "") // the extension and the expectation below resolve the same images
	t.Setenv("WEBHOOK_CONFIG_NAMESPACE", "")
	ports := testutil.FreePorts(t, 2) // the webhook server, the health server
	port := ports[0]
	args := []string{
		"--kubeconfig=" + cp.KubeconfigPath,
		"--leader-election=false",
		"--disable-controllers=containerruntime,healthcheck,heartbeat",
		"--delivery-mode=" + string(mode),
		"--webhook-config-mode=url",
		"--webhook-config-url=127.0.0.1:" + strconv.Itoa(port),
		"--webhook-config-server-host=127.0.0.1",
		"--webhook-config-server-port=" + strconv.Itoa(port),
		"--webhook-config-cert-dir=" + t.TempDir(),
		"--health-bind-address=127.0.0.1:" + strconv.Itoa(ports[1]),
		"--metrics-bind-address=0", // no metrics server
		"--log-format=text",
	}
	runCtx, stop := context.WithCancel(ctx)
	controller := envtest.RunController(runCtx, t, args)

	// The library registers the webhook once the extension leads, with the CA of the certificate it generated.
	testutil.Eventually(t, "MutatingWebhookConfiguration "+mwcName, func() error {
		if exited, err := controller.Exited(); exited {
			t.Fatalf("the extension stopped: %v", err)
		}
		mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := c.Get(ctx, client.ObjectKey{Name: mwcName}, mwc); err != nil {
			return err
		}
		if len(mwc.Webhooks) != 1 || len(mwc.Webhooks[0].ClientConfig.CABundle) == 0 {
			return fmt.Errorf("webhooks %+v: want one with a CA bundle", mwc.Webhooks)
		}
		return nil
	})

	renderer, err := render.Load(version.Version, "")
	testutil.Must(t, err)
	e := &env{c: c, ensurer: oscwebhook.NewEnsurer(renderer, oscwebhook.Options{DeliveryMode: mode}), stop: stop, port: port}
	testutil.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: osctest.Namespace,
		Labels: map[string]string{v1beta1constants.GardenRole: v1beta1constants.GardenRoleShoot}}}))
	testutil.Must(t, c.Create(ctx, gardenerfixtures.Cluster(osctest.Shoot(true, osctest.ProviderConfig))))
	return e
}

// setShoot updates the Cluster as gardenlet does at the start of a shoot reconcile.
func (e *env) setShoot(t *testing.T, shoot *gardencorev1beta1.Shoot) {
	t.Helper()
	cl := &extensionsv1alpha1.Cluster{}
	testutil.Must(t, e.c.Get(context.Background(), client.ObjectKey{Name: osctest.Namespace}, cl))
	cl.Spec.Shoot = gardenerfixtures.Cluster(shoot).Spec.Shoot
	testutil.Must(t, e.c.Update(context.Background(), cl))
}

// writeOSC writes the pool's OSC as gardenlet does (pkg/component/extensions/operatingsystemconfig: a merge patch of
// labels, annotations and the whole spec, created if missing) and returns what kube-apiserver stored.
func (e *env) writeOSC(ctx context.Context, want *extensionsv1alpha1.OperatingSystemConfig) (*extensionsv1alpha1.OperatingSystemConfig, error) {
	osc := &extensionsv1alpha1.OperatingSystemConfig{ObjectMeta: metav1.ObjectMeta{Name: want.Name, Namespace: want.Namespace}}
	_, err := controllerutils.GetAndCreateOrMergePatch(ctx, e.c, osc, func() error {
		metav1.SetMetaDataAnnotation(&osc.ObjectMeta, v1beta1constants.GardenerOperation, v1beta1constants.GardenerOperationReconcile)
		for k, v := range want.Labels {
			metav1.SetMetaDataLabel(&osc.ObjectMeta, k, v)
		}
		osc.Spec = *want.Spec.DeepCopy()
		return nil
	})
	if err != nil {
		return nil, err
	}
	stored := &extensionsv1alpha1.OperatingSystemConfig{}
	return stored, e.c.Get(ctx, client.ObjectKeyFromObject(osc), stored)
}

func specJSON(t *testing.T, spec extensionsv1alpha1.OperatingSystemConfigSpec) string {
	t.Helper()
	b, err := json.Marshal(spec)
	testutil.Must(t, err)
	return string(b)
}

// expected is what the pure function makes of gardenlet's OSC: the webhook must store exactly that.
func (e *env) expected(t *testing.T, shoot *gardencorev1beta1.Shoot, in, old *extensionsv1alpha1.OperatingSystemConfig) *extensionsv1alpha1.OperatingSystemConfig {
	t.Helper()
	out := in.DeepCopy()
	testutil.Must(t, e.ensurer.MutateOSC(context.Background(), osctest.Cluster(shoot), out, old))
	return out
}

// TestOperatingSystemConfigWebhook walks one shoot through what gardenlet does: OSCs of both pools created, updated
// again unchanged, gVisor removed from the pool (Cluster, then OSC), and a broken providerConfig.
func TestOperatingSystemConfigWebhook(t *testing.T) {
	e := start(t, delivery.OperatingSystemConfig)
	ctx := context.Background()
	withGVisor := osctest.Shoot(true, osctest.ProviderConfig)

	// The gVisor pool's OSC is mutated exactly as the pure function mutates it.
	gv, err := e.writeOSC(ctx, osctest.OSC(osctest.GVisorPool))
	testutil.Must(t, err)
	want := e.expected(t, withGVisor, osctest.OSC(osctest.GVisorPool), nil)
	if d := cmp.Diff(specJSON(t, want.Spec), specJSON(t, gv.Spec)); d != "" {
		t.Fatalf("stored gVisor pool OSC differs from MutateOSC's (-want +got):\n%s", d)
	}
	if !strings.Contains(specJSON(t, gv.Spec), `"runtime_type":"io.containerd.runsc.v1"`) {
		t.Fatalf("no runsc plugin entry in the stored OSC: %s", specJSON(t, gv.Spec))
	}

	// gardenlet's own entries keep their bytes (kubelet.service is not re-serialized) and their order.
	in := osctest.OSC(osctest.GVisorPool)
	for i, u := range in.Spec.Units {
		if got := gv.Spec.Units[i]; got.Name != u.Name || *got.Content != *u.Content {
			t.Errorf("unit %d: stored %s %q, gardenlet wrote %s %q", i, got.Name, *got.Content, u.Name, *u.Content)
		}
	}

	// The other pool's OSC is stored as gardenlet wrote it, byte for byte.
	other, err := e.writeOSC(ctx, osctest.OSC(osctest.OtherPool))
	testutil.Must(t, err)
	if got, in := specJSON(t, other.Spec), specJSON(t, osctest.OSC(osctest.OtherPool).Spec); got != in {
		t.Errorf("the other pool's OSC was changed:\n%s", cmp.Diff(in, got))
	}
	// The provision OSC of the gVisor pool too.
	prov, err := e.writeOSC(ctx, osctest.ProvisionOSC(osctest.GVisorPool))
	testutil.Must(t, err)
	if got, in := specJSON(t, prov.Spec), specJSON(t, osctest.ProvisionOSC(osctest.GVisorPool).Spec); got != in {
		t.Errorf("the provision OSC was changed:\n%s", cmp.Diff(in, got))
	}

	// gardenlet's next reconcile writes the same OSC again: nothing changes, not even the resourceVersion.
	again, err := e.writeOSC(ctx, osctest.OSC(osctest.GVisorPool))
	testutil.Must(t, err)
	if again.ResourceVersion != gv.ResourceVersion || again.Generation != gv.Generation {
		t.Errorf("a second identical update changed the OSC: resourceVersion %s -> %s, generation %d -> %d\n%s",
			gv.ResourceVersion, again.ResourceVersion, gv.Generation, again.Generation, cmp.Diff(specJSON(t, gv.Spec), specJSON(t, again.Spec)))
	}

	// gVisor leaves the pool: gardenlet updates the Cluster, then the OSC; the stored OSC gets the remove entry and
	// loses our files and unit.
	withoutGVisor := osctest.Shoot(false, "")
	e.setShoot(t, withoutGVisor)
	removed, err := e.writeOSC(ctx, osctest.OSC(osctest.GVisorPool))
	testutil.Must(t, err)
	wantRemoved := e.expected(t, withoutGVisor, osctest.OSC(osctest.GVisorPool), gv)
	if d := cmp.Diff(specJSON(t, wantRemoved.Spec), specJSON(t, removed.Spec)); d != "" {
		t.Fatalf("stored OSC after the removal differs from MutateOSC's (-want +got):\n%s", d)
	}
	plugins := removed.Spec.CRIConfig.Containerd.Plugins
	if last := plugins[len(plugins)-1]; last.Op == nil || *last.Op != extensionsv1alpha1.RemovePluginPathOperation ||
		!cmp.Equal(last.Path, oscwebhook.PluginPath()) || last.Values != nil {
		t.Errorf("want the remove entry for %v last, got %+v", oscwebhook.PluginPath(), plugins)
	}
	for _, f := range removed.Spec.Files {
		if strings.Contains(f.Path, "runsc") || strings.Contains(f.Path, "gvisor") {
			t.Errorf("file %s of gVisor still in the OSC", f.Path)
		}
	}
	// And it stays while the OSC carries it: the next update is a no-op again.
	kept, err := e.writeOSC(ctx, osctest.OSC(osctest.GVisorPool))
	testutil.Must(t, err)
	if kept.ResourceVersion != removed.ResourceVersion {
		t.Errorf("the update after the removal changed the OSC:\n%s", cmp.Diff(specJSON(t, removed.Spec), specJSON(t, kept.Spec)))
	}

	// A broken providerConfig: the write is refused, naming the Shoot field and the flag.
	e.setShoot(t, osctest.Shoot(true, osctest.BadProviderConfig))
	_, err = e.writeOSC(ctx, osctest.OSC(osctest.GVisorPool))
	if err == nil {
		t.Fatal("an OSC write for a pool with a broken providerConfig was admitted")
	}
	for _, want := range []string{"spec.provider.workers[0].cri.containerRuntimes[0]", "providerConfig.configFlags[no-such-flag]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %q", err, want)
		}
	}
	// The other pool is not held up by it.
	if _, err := e.writeOSC(ctx, osctest.OSC(osctest.OtherPool)); err != nil {
		t.Errorf("the other pool's OSC was refused too: %v", err)
	}
}

// TestRegistration: the webhook the library registered calls our path on the configured URL for OSC creates and
// updates only, in shoot namespaces only, for pool OSCs only, and fails closed.
func TestRegistration(t *testing.T) {
	e := start(t, delivery.OperatingSystemConfig)
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
	testutil.Must(t, e.c.Get(context.Background(), client.ObjectKey{Name: mwcName}, mwc))
	w := mwc.Webhooks[0]
	if w.ClientConfig.URL == nil || !strings.HasPrefix(*w.ClientConfig.URL, "https://127.0.0.1:") || !strings.HasSuffix(*w.ClientConfig.URL, oscwebhook.Path) {
		t.Errorf("clientConfig.url %v: want https://127.0.0.1:<port>%s", w.ClientConfig.URL, oscwebhook.Path)
	}
	if d := cmp.Diff(oscwebhook.NamespaceSelector(), w.NamespaceSelector); d != "" {
		t.Errorf("namespaceSelector (-want +got):\n%s", d)
	}
	if d := cmp.Diff(oscwebhook.ObjectSelector(delivery.OperatingSystemConfig), w.ObjectSelector); d != "" {
		t.Errorf("objectSelector (-want +got):\n%s", d)
	}
	if w.FailurePolicy == nil || *w.FailurePolicy != admissionregistrationv1.Fail {
		t.Errorf("failurePolicy %v, want Fail (an OSC must never reach the nodes without gVisor's part)", w.FailurePolicy)
	}
	if len(w.Rules) != 1 || !cmp.Equal(w.Rules[0].Resources, []string{"operatingsystemconfigs"}) ||
		!cmp.Equal(w.Rules[0].Operations, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}) {
		t.Errorf("rules %+v", w.Rules)
	}
	var buf bytes.Buffer
	_ = json.Indent(&buf, mustJSON(t, w), "", "  ")
	t.Logf("registered webhook:\n%s", buf.String())
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	testutil.Must(t, err)
	return b
}
