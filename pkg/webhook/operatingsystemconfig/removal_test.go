// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig_test

import (
	"bytes"
	"context"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	gvisorv1alpha1 "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	osc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// stored gives o the UID and generation the API server would have stored it with.
func stored(o *extensionsv1alpha1.OperatingSystemConfig, generation int64) *extensionsv1alpha1.OperatingSystemConfig {
	o = o.DeepCopy()
	o.UID, o.Generation = "osc-uid", generation
	return o
}

// record is the controller's providerStatus for o, decoded as the webhook reads it.
func record(t *testing.T, o *extensionsv1alpha1.OperatingSystemConfig) *gvisorv1alpha1.ContainerRuntimeStatus {
	t.Helper()
	cr := &extensionsv1alpha1.ContainerRuntime{}
	cr.Status.ProviderStatus = osc.NewRemovalStatus(o)
	s, err := osc.RemovalStatusOf(cr)
	if err != nil || s == nil {
		t.Fatalf("RemovalStatusOf(NewRemovalStatus) = %v, %v", s, err)
	}
	return s
}

func mutateWith(t *testing.T, e *osc.Ensurer, withGVisor bool, old *extensionsv1alpha1.OperatingSystemConfig, r *gvisorv1alpha1.ContainerRuntimeStatus) *extensionsv1alpha1.OperatingSystemConfig {
	t.Helper()
	return mutateFrom(t, e, withGVisor, osctest.OSC(osctest.GVisorPool), old, r) // gardenlet's fresh spec of the update
}

// mutateFrom is mutateWith on the update in (mutated in place and returned).
func mutateFrom(t *testing.T, e *osc.Ensurer, withGVisor bool, out, old *extensionsv1alpha1.OperatingSystemConfig, r *gvisorv1alpha1.ContainerRuntimeStatus) *extensionsv1alpha1.OperatingSystemConfig {
	t.Helper()
	if err := e.MutateOSCWithRemoval(context.Background(), osctest.Cluster(osctest.Shoot(withGVisor, osctest.ProviderConfig)), out, old, r); err != nil {
		t.Fatal(err)
	}
	return out
}

// switchedToDaemonSet is the DaemonSet mode's ensurer and the gVisor pool's stored OSCs of a switch to it:
// installed (generation 1, gVisor added in the OSC mode) and removed (generation 2, only the remove entry).
func switchedToDaemonSet(t *testing.T) (ds *osc.Ensurer, installed, removed *extensionsv1alpha1.OperatingSystemConfig) {
	t.Helper()
	ds = newEnsurer(t, osc.Options{DeliveryMode: delivery.DaemonSet})
	installed = stored(mutate(t, newEnsurer(t, osc.Options{}), true, osctest.OSC(osctest.GVisorPool), nil), 1)
	removed = stored(mutate(t, ds, true, osctest.OSC(osctest.GVisorPool), installed), 2)
	return ds, installed, removed
}

// TestRemovalDroppedAtRecordedGeneration: the remove entry goes exactly when the old OSC is the version the
// controller recorded (same UID and generation) and carries only the remove entry; every other case keeps it, or
// (gVisor delivered through the OSC again) adds gVisor.
func TestRemovalDroppedAtRecordedGeneration(t *testing.T) {
	ds, installed, removed := switchedToDaemonSet(t)
	if !osc.RemovalOnly(removed) || osc.RemovalOnly(installed) || osc.RemovalOnly(osctest.OSC(osctest.GVisorPool)) {
		t.Fatal("RemovalOnly: want true only for the OSC carrying the remove entry alone")
	}
	fresh := osctest.OSC(osctest.GVisorPool)
	if got := mutateWith(t, ds, true, removed, record(t, removed)); !bytes.Equal(marshal(t, fresh), marshal(t, got)) {
		t.Errorf("recorded generation: want gardenlet's OSC without anything of ours:\n%s", cmp.Diff(fresh, got))
	}
	// gVisor removed from the pool (any mode) is the same removal path.
	if got := mutateWith(t, newEnsurer(t, osc.Options{}), false, removed, record(t, removed)); !bytes.Equal(marshal(t, fresh), marshal(t, got)) {
		t.Errorf("gVisor left the pool, recorded generation: want nothing of ours:\n%s", cmp.Diff(fresh, got))
	}

	keep := map[string]*gvisorv1alpha1.ContainerRuntimeStatus{
		"no record":                 nil,
		"older generation recorded": record(t, stored(removed, 1)),
		"another OSC object's record": func() *gvisorv1alpha1.ContainerRuntimeStatus {
			r := record(t, removed)
			r.RemovalAppliedOSCUID = "other"
			return r
		}(),
		"record without UID": func() *gvisorv1alpha1.ContainerRuntimeStatus {
			r := record(t, removed)
			r.RemovalAppliedOSCUID = ""
			return r
		}(),
		"newer generation than stored": record(t, stored(removed, 3)),
	}
	for name, r := range keep {
		if got := mutateWith(t, ds, true, removed, r); !bytes.Equal(marshal(t, mutate(t, ds, true, osctest.OSC(osctest.GVisorPool), removed)), marshal(t, got)) {
			t.Errorf("%s: the remove entry must stay:\n%s", name, cmp.Diff(removed, got))
		}
	}
	// The record of the add's generation never drops the removal that follows it.
	if got := mutateWith(t, ds, true, installed, record(t, installed)); !osc.RemovalOnly(got) {
		t.Errorf("old OSC carrying the add entry: want the remove entry, got %v", got.Spec.CRIConfig)
	}
	// Switched back to the OSC mode with a matching record: gVisor is added again (its generation moves on).
	if got := mutateWith(t, newEnsurer(t, osc.Options{}), true, removed, record(t, removed)); !bytes.Equal(marshal(t, installed.Spec), marshal(t, got.Spec)) {
		t.Errorf("OSC mode again: want gVisor added:\n%s", cmp.Diff(installed.Spec, got.Spec))
	}
}

// TestRemovalStatusOf: another provider status (or none) is no record; garbage is an error naming the field.
func TestRemovalStatusOf(t *testing.T) {
	cr := &extensionsv1alpha1.ContainerRuntime{}
	if s, err := osc.RemovalStatusOf(cr); s != nil || err != nil {
		t.Errorf("no providerStatus: %v, %v", s, err)
	}
	cr.Status.ProviderStatus = osc.NewRemovalStatus(stored(osctest.OSC(osctest.GVisorPool), 7))
	if got := string(cr.Status.ProviderStatus.Raw); got != `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"ContainerRuntimeStatus","removalAppliedOSCUID":"osc-uid","removalAppliedAtGeneration":7}` {
		t.Errorf("providerStatus = %s", got)
	}
	cr.Status.ProviderStatus.Raw = []byte(`{"apiVersion":"other/v1","kind":"Other","removalAppliedAtGeneration":7}`)
	if s, err := osc.RemovalStatusOf(cr); s != nil || err != nil {
		t.Errorf("another kind: %v, %v", s, err)
	}
	cr.Status.ProviderStatus.Raw = []byte(`[`)
	if _, err := osc.RemovalStatusOf(cr); err == nil || !bytes.Contains([]byte(err.Error()), []byte("status.providerStatus")) {
		t.Errorf("garbage: want an error naming status.providerStatus, got %v", err)
	}
}

// seedWith is a seed holding the ContainerRuntimes gardenlet writes for workers in osctest's namespace: the gvisor
// one of GVisorPool carries record as its status.providerStatus, every other one others.
func seedWith(t *testing.T, record, others *runtime.RawExtension, workers ...gardencorev1beta1.Worker) client.Client {
	t.Helper()
	b := fakeclient.NewClientBuilder().WithScheme(seedScheme(t))
	for _, cr := range gardenerfixtures.ContainerRuntimes(osctest.Namespace, v1beta1constants.GardenerOperationReconcile, workers...) {
		cr.Status.ProviderStatus = others
		if cr.Spec.Type == "gvisor" && cr.Spec.WorkerPool.Name == osctest.GVisorPool {
			cr.Status.ProviderStatus = record
		}
		b = b.WithObjects(cr)
	}
	return b.Build()
}

func seedScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := extensionsv1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReadRemovalStatusFindsGardenletsContainerRuntime: the webhook finds the controller's record on the pool's
// ContainerRuntime as gardenlet names and writes it, beside another runtime type of the same pool and another
// pool's gvisor runtime (with records of their own), and the update from the recorded OSC then drops the remove
// entry (the switch to the DaemonSet completes). Without a gvisor ContainerRuntime of the pool there is no record,
// whatever the others carry.
func TestReadRemovalStatusFindsGardenletsContainerRuntime(t *testing.T) {
	ds, _, removed := switchedToDaemonSet(t)
	ctx := context.Background()
	other := gardencorev1beta1.ContainerRuntime{Type: "other"}

	seed := seedWith(t, osc.NewRemovalStatus(removed), osc.NewRemovalStatus(stored(removed, 1)),
		gardenerfixtures.Worker(osctest.GVisorPool, other, gardenerfixtures.GVisor(nil)),
		gardenerfixtures.Worker(osctest.OtherPool, gardenerfixtures.GVisor(nil)))
	r, err := osc.ReadRemovalStatus(ctx, seed, removed)
	if err != nil || r == nil || r.RemovalAppliedOSCUID != removed.UID || r.RemovalAppliedAtGeneration != removed.Generation {
		t.Fatalf("ReadRemovalStatus = %+v, %v: want the record of OSC %s generation %d on gardenlet's ContainerRuntime %s",
			r, err, removed.UID, removed.Generation, gardenerfixtures.ContainerRuntimeKey(osctest.Namespace, osctest.GVisorPool))
	}
	if got := mutateWith(t, ds, true, removed, r); osc.RemovalOnly(got) {
		t.Errorf("the record on gardenlet's ContainerRuntime must drop the remove entry: %v", got.Spec.CRIConfig.Containerd.Plugins)
	}

	for name, workers := range map[string][]gardencorev1beta1.Worker{
		"no ContainerRuntime":                   nil,
		"only another pool's gvisor":            {gardenerfixtures.Worker(osctest.OtherPool, gardenerfixtures.GVisor(nil))},
		"only another runtime type of the pool": {gardenerfixtures.Worker(osctest.GVisorPool, other)},
	} {
		if r, err := osc.ReadRemovalStatus(ctx, seedWith(t, nil, osc.NewRemovalStatus(removed), workers...), removed); r != nil || err != nil {
			t.Errorf("%s: ReadRemovalStatus = %+v, %v; want no record", name, r, err)
		}
	}
}

// TestPoolContainerRuntimeIsGardenlets: the ContainerRuntime the webhook builds from the Shoot for rendering (the
// OSC may come before the ContainerRuntime) is named and specified as the one gardenlet writes for the pool, so
// what the webhook renders, and the errors it names, are the controller's.
func TestPoolContainerRuntimeIsGardenlets(t *testing.T) {
	shoot := osctest.Shoot(true, osctest.ProviderConfig)
	got := osc.PoolContainerRuntime(osctest.Cluster(shoot), osctest.GVisorPool)
	var want *extensionsv1alpha1.ContainerRuntime
	for _, cr := range gardenerfixtures.ContainerRuntimes(osctest.Namespace, "", shoot.Spec.Provider.Workers...) {
		if cr.Spec.WorkerPool.Name == osctest.GVisorPool {
			want = cr
		}
	}
	if got == nil || want == nil {
		t.Fatalf("webhook's ContainerRuntime %v, gardenlet's %v", got, want)
	}
	if got.Name != want.Name || got.Namespace != want.Namespace {
		t.Errorf("the webhook names the pool's ContainerRuntime %s/%s, gardenlet %s/%s", got.Namespace, got.Name, want.Namespace, want.Name)
	}
	if diff := cmp.Diff(want.Spec, got.Spec); diff != "" {
		t.Errorf("spec differs from gardenlet's (-gardenlet +webhook):\n%s", diff)
	}
}
