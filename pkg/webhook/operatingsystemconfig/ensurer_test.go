// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	extensionsv1alpha1helper "github.com/gardener/gardener/pkg/api/extensions/v1alpha1/helper"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	extensionscontextwebhook "github.com/gardener/gardener/extensions/pkg/webhook/context"
	"github.com/gardener/gardener/extensions/pkg/webhook/controlplane/genericmutator"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	osc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// testVersion pins the image tags of the goldens (a release version tags our images with itself).
const testVersion = "v0.1.0"

func newEnsurer(t testing.TB, opts osc.Options) *osc.Ensurer {
	t.Helper()
	return osc.NewEnsurer(newRenderer(t), opts)
}

// newRenderer is the renderer of release testVersion, with its pinned images.
func newRenderer(t testing.TB) *render.Renderer {
	t.Helper()
	r, err := render.Load(testVersion, "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mutate(t *testing.T, e *osc.Ensurer, withGVisor bool, in, old *extensionsv1alpha1.OperatingSystemConfig) *extensionsv1alpha1.OperatingSystemConfig {
	t.Helper()
	out := in.DeepCopy()
	if err := e.MutateOSC(context.Background(), osctest.Cluster(osctest.Shoot(withGVisor, osctest.ProviderConfig)), out, old); err != nil {
		t.Fatal(err)
	}
	return out
}

// golden compares the YAML of obj with testdata/<name>.yaml (`make snapshots` rewrites it).
func golden(t *testing.T, name string, obj any) {
	t.Helper()
	got, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", name+".yaml"), string(got))
}

func marshal(t *testing.T, obj any) []byte {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGVisorPool: the gVisor pool's reconcile OSC gets the files, the unit and the plugin entry (the whole object
// against a golden), and mutating the result again changes nothing.
func TestGVisorPool(t *testing.T) {
	e := newEnsurer(t, osc.Options{})
	once := mutate(t, e, true, osctest.OSC(osctest.GVisorPool), nil)
	golden(t, "gvisor-pool", once)

	twice := mutate(t, e, true, once, once)
	if !bytes.Equal(marshal(t, once), marshal(t, twice)) {
		t.Errorf("second mutation changed the OSC:\n%s", cmp.Diff(once, twice))
	}
	// An update from gardenlet (its fresh spec, the stored mutated OSC as old) gives the same object again.
	if again := mutate(t, e, true, osctest.OSC(osctest.GVisorPool), once); !bytes.Equal(marshal(t, once), marshal(t, again)) {
		t.Errorf("gardenlet's update mutated differently:\n%s", cmp.Diff(once, again))
	}
}

// TestUntouched: OSCs of the other pool, the provision OSC and OSCs of a shoot without gVisor stay byte for byte.
func TestUntouched(t *testing.T) {
	e := newEnsurer(t, osc.Options{})
	for name, c := range map[string]struct {
		in         *extensionsv1alpha1.OperatingSystemConfig
		withGVisor bool
	}{
		"other pool":       {osctest.OSC(osctest.OtherPool), true},
		"provision OSC":    {osctest.ProvisionOSC(osctest.GVisorPool), true},
		"shoot w/o gvisor": {osctest.OSC(osctest.GVisorPool), false},
		"no pool label": {func() *extensionsv1alpha1.OperatingSystemConfig {
			o := osctest.OSC(osctest.GVisorPool)
			o.Labels = nil
			return o
		}(), true},
	} {
		t.Run(name, func(t *testing.T) {
			before := marshal(t, c.in)
			after := marshal(t, mutate(t, e, c.withGVisor, c.in, c.in))
			if !bytes.Equal(before, after) {
				t.Errorf("OSC changed:\n%s", cmp.Diff(string(before), string(after)))
			}
		})
	}
}

// TestRunscTomlIsTheDaemonSets: the staged runsc flags are byte for byte the runsc ConfigMap's of the DaemonSet mode
// for the same ContainerRuntime, and node-agent's codec reads the inline file back to exactly those bytes: the
// installer makes the node's runsc.toml from them in both modes (test/nodeagent compares the files on a node).
func TestRunscTomlIsTheDaemonSets(t *testing.T) {
	r := newRenderer(t)
	shoot := osctest.Shoot(true, osctest.ProviderConfig)
	add, ok, err := osc.NewEnsurer(r, osc.Options{}).Additions(osctest.Cluster(shoot), osctest.GVisorPool)
	if err != nil || !ok {
		t.Fatalf("Additions: ok=%v, %v", ok, err)
	}
	// The DaemonSet mode renders the ContainerRuntime gardenlet writes for the shoot's gVisor pool.
	crs := gardenerfixtures.ContainerRuntimes(osctest.Namespace, v1beta1constants.GardenerOperationReconcile, shoot.Spec.Provider.Workers...)
	objs, err := r.Shoot(render.Settings{DeliveryMode: delivery.DaemonSet}, render.ShootInput{ContainerRuntimes: crs,
		KubernetesVersion: osctest.KubernetesVersion, Architectures: map[string]string{osctest.GVisorPool: "amd64"}})
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, o := range objs.Pools[0].Installation.Objects() {
		if cm, ok := o.(*corev1.ConfigMap); ok {
			want = cm.Data["runsc.toml"]
		}
	}
	var inline *extensionsv1alpha1.FileContentInline
	for _, f := range add.Files {
		if f.Path == stagedFlags {
			inline = f.Content.Inline
		}
	}
	if want == "" || inline == nil {
		t.Fatalf("no runsc.toml: ConfigMap %q, OSC file %v", want, inline)
	}
	got, err := extensionsv1alpha1helper.Decode(inline.Encoding, []byte(inline.Data))
	if err != nil {
		t.Fatalf("node-agent's codec cannot read the inline runsc.toml: %v", err)
	}
	if string(got) != want {
		t.Errorf("the staged flags differ from the DaemonSet's ConfigMap:\n%s", cmp.Diff(want, string(got)))
	}
	if !strings.Contains(want, `net-raw = "true"`) {
		t.Errorf("runsc.toml lacks the pool's flags:\n%s", want)
	}
}

// TestRemoval: gVisor left the pool. The update whose old OSC carried our add gets the remove op and none of our
// files or units; later updates keep the remove op as long as their old OSC carries it; a fresh OSC (old nil)
// of a pool that never had gVisor gets nothing.
func TestRemoval(t *testing.T) {
	e := newEnsurer(t, osc.Options{})
	installed := mutate(t, e, true, osctest.OSC(osctest.GVisorPool), nil)
	removed := mutate(t, e, false, osctest.OSC(osctest.GVisorPool), installed)
	golden(t, "gvisor-removed", removed)

	for i := range 2 {
		next := mutate(t, e, false, osctest.OSC(osctest.GVisorPool), removed)
		if !bytes.Equal(marshal(t, removed), marshal(t, next)) {
			t.Errorf("update %d after the removal: the remove op was not kept as it was:\n%s", i+1, cmp.Diff(removed, next))
		}
	}
	fresh := osctest.OSC(osctest.GVisorPool)
	if got := mutate(t, e, false, fresh, nil); !bytes.Equal(marshal(t, fresh), marshal(t, got)) {
		t.Errorf("a create without gVisor was mutated:\n%s", cmp.Diff(fresh, got))
	}
	// gVisor back on the pool: the remove op is replaced by the add, nothing is duplicated.
	back := mutate(t, e, true, osctest.OSC(osctest.GVisorPool), removed)
	if !bytes.Equal(marshal(t, installed), marshal(t, back)) {
		t.Errorf("gVisor re-added: want the installed OSC again:\n%s", cmp.Diff(installed, back))
	}
}

// TestBadProviderConfig: the error names the Shoot field and the flag.
func TestBadProviderConfig(t *testing.T) {
	e := newEnsurer(t, osc.Options{})
	in := osctest.OSC(osctest.GVisorPool)
	err := e.MutateOSC(context.Background(), osctest.Cluster(osctest.Shoot(true, osctest.BadProviderConfig)), in, nil)
	if err == nil {
		t.Fatal("want an error for a flag outside the allowlist")
	}
	for _, want := range []string{"spec.provider.workers[0].cri.containerRuntimes[0]", "providerConfig.configFlags[no-such-flag]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if !render.IsConfigurationError(err) {
		t.Errorf("error %v does not wrap a *render.ConfigurationError", err)
	}
}

// TestSkipSandboxProof: with the proof off the timer is left out and the unit only activates the release; nothing
// else changes.
func TestSkipSandboxProof(t *testing.T) {
	with := mutate(t, newEnsurer(t, osc.Options{}), true, osctest.OSC(osctest.GVisorPool), nil)
	without := mutate(t, newEnsurer(t, osc.Options{SkipSandboxProof: true}), true, osctest.OSC(osctest.GVisorPool), nil)
	if hasUnit(without.Spec.Units, osc.ProofTimerName) || !hasUnit(with.Spec.Units, osc.ProofTimerName) {
		t.Errorf("the re-proof timer: with the proof %v, without %v; want it only with the proof",
			hasUnit(with.Spec.Units, osc.ProofTimerName), hasUnit(without.Spec.Units, osc.ProofTimerName))
	}
	i := slices.IndexFunc(without.Spec.Units, func(u extensionsv1alpha1.Unit) bool { return u.Name == osc.ProofUnitName })
	if i < 0 || !strings.Contains(*without.Spec.Units[i].Content, " prove --activate ") || !strings.Contains(*without.Spec.Units[i].Content, " --prove-sandbox=false\n") {
		t.Errorf("proof off: want the unit to activate the release without a sandbox: %v", without.Spec.Units)
	}
	with.Spec.Units, without.Spec.Units = nil, nil
	if d := cmp.Diff(with, without); d != "" {
		t.Errorf("the proof setting changed more than the unit:\n%s", d)
	}
}

func hasUnit(units []extensionsv1alpha1.Unit, name string) bool {
	return slices.ContainsFunc(units, func(u extensionsv1alpha1.Unit) bool { return u.Name == name })
}

// TestEnsurerNeedsPlan: called through genericmutator directly (no plan in the context), the ensurer refuses
// instead of guessing the pool, and leaves the files as they were.
func TestEnsurerNeedsPlan(t *testing.T) {
	var e genericmutator.Ensurer = &genericEnsurer{gvisor: newEnsurer(t, osc.Options{})}
	files := []extensionsv1alpha1.File{}
	gctx := extensionscontextwebhook.NewInternalGardenContext(osctest.Cluster(osctest.Shoot(true, "")))
	if err := e.EnsureAdditionalFiles(context.Background(), gctx, &files, nil); err == nil || !strings.Contains(err.Error(), "MutateOSC") {
		t.Errorf("want an error pointing to MutateOSC, got %v", err)
	}
	if len(files) != 0 {
		t.Errorf("the refused call changed the files: %v", files)
	}
}

// TestDaemonSetMode: with the landscape back on the DaemonSet mode, a gVisor pool is not delivered through its OSC:
// an OSC that carried our add gets the remove op (the switch back), a fresh one is left alone.
func TestDaemonSetMode(t *testing.T) {
	installed := mutate(t, newEnsurer(t, osc.Options{}), true, osctest.OSC(osctest.GVisorPool), nil)
	ds := newEnsurer(t, osc.Options{DeliveryMode: delivery.DaemonSet})
	switched := mutate(t, ds, true, osctest.OSC(osctest.GVisorPool), installed)
	removedByPool := mutate(t, newEnsurer(t, osc.Options{}), false, osctest.OSC(osctest.GVisorPool), installed)
	if !bytes.Equal(marshal(t, removedByPool), marshal(t, switched)) {
		t.Errorf("switch to the DaemonSet mode: want the same removal as gVisor leaving the pool:\n%s", cmp.Diff(removedByPool, switched))
	}
	fresh := osctest.OSC(osctest.GVisorPool)
	if got := mutate(t, ds, true, fresh, nil); !bytes.Equal(marshal(t, fresh), marshal(t, got)) {
		t.Errorf("DaemonSet mode mutated a fresh gVisor pool's OSC:\n%s", cmp.Diff(fresh, got))
	}
}

// TestGardenletsOwnContentSurvives: on the pool's OSC exactly as gardenlet writes it (its kubelet, containerd,
// node-agent units and files), the webhook adds gVisor and then the removal without touching, replacing or
// shadowing anything of gardenlet's: every unit and file of gardenlet's is still there byte for byte, and none of
// ours has a path or name of gardenlet's.
func TestGardenletsOwnContentSurvives(t *testing.T) {
	gardenlet := osctest.GardenletOSCs(osctest.GVisorPool).Reconcile
	installed := mutate(t, newEnsurer(t, osc.Options{}), true, gardenlet, nil)
	removed := mutate(t, newEnsurer(t, osc.Options{DeliveryMode: delivery.DaemonSet}), true, gardenlet, installed)
	for name, out := range map[string]*extensionsv1alpha1.OperatingSystemConfig{"installed": installed, "removed": removed} {
		units := map[string][]byte{}
		for _, u := range out.Spec.Units {
			units[u.Name] = marshal(t, u)
		}
		files := map[string][]byte{}
		for _, f := range out.Spec.Files {
			files[f.Path] = marshal(t, f)
		}
		for _, u := range gardenlet.Spec.Units {
			if got := units[u.Name]; !bytes.Equal(got, marshal(t, u)) {
				t.Errorf("%s: gardenlet's unit %s changed:\n%s", name, u.Name, cmp.Diff(string(marshal(t, u)), string(got)))
			}
		}
		for _, f := range gardenlet.Spec.Files {
			if got := files[f.Path]; !bytes.Equal(got, marshal(t, f)) {
				t.Errorf("%s: gardenlet's file %s changed:\n%s", name, f.Path, cmp.Diff(string(marshal(t, f)), string(got)))
			}
		}
		if len(out.Spec.Units) < len(gardenlet.Spec.Units) || len(out.Spec.Files) < len(gardenlet.Spec.Files) {
			t.Errorf("%s: %d units and %d files, gardenlet wrote %d and %d", name, len(out.Spec.Units), len(out.Spec.Files), len(gardenlet.Spec.Units), len(gardenlet.Spec.Files))
		}
		if len(units) != len(out.Spec.Units) || len(files) != len(out.Spec.Files) {
			t.Errorf("%s: a unit name or file path appears twice (ours shadows gardenlet's)", name)
		}
	}
	if len(installed.Spec.Files) == len(gardenlet.Spec.Files) {
		t.Errorf("the webhook added no file to gardenlet's OSC")
	}
}
