// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// TestUninstallDaemonSet compares the whole uninstall mode output with the contract: only the DaemonSet (no runsc
// ConfigMap, the flags are ignored), running `gvisor-installer uninstall` with the install mode's pod otherwise.
func TestUninstallDaemonSet(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	v := poolValues // has ConfigFlags: uninstall mode must neither need nor render them
	v.Mode = render.ModeUninstall
	m, err := r.Installation(v)
	if err != nil {
		t.Fatal(err)
	}
	want := []client.Object{expectedDaemonSet(dsParams{pool: "gvisor", image: pinnedImage(t), binaryPath: "/var/bin/containerruntimes",
		nodeSelector: map[string]string{"worker.gardener.cloud/cri-name": "containerd", "worker.gardener.cloud/pool": "gvisor"}, uninstall: true})}
	if diff := cmp.Diff(want, m.Objects(), quantityEqual); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"daemonset__kube-system__gvisor-installation-gvisor.yaml"}, keys(m.Files())); diff != "" {
		t.Errorf("Files() keys (-want +got):\n%s", diff)
	}
}

// TestUninstallReadinessGate: with the gate on, the uninstall pod keeps the service account, token, --label-node and
// NODE_NAME, so the installer can remove its node's label before unregistering runsc.
func TestUninstallReadinessGate(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	v := poolValues
	v.Mode, v.ReadinessGate = render.ModeUninstall, true
	m, err := r.Installation(v)
	if err != nil {
		t.Fatal(err)
	}
	ds := expectedDaemonSet(dsParams{pool: "gvisor", image: pinnedImage(t), binaryPath: "/var/bin/containerruntimes",
		nodeSelector: map[string]string{"worker.gardener.cloud/cri-name": "containerd", "worker.gardener.cloud/pool": "gvisor"}, uninstall: true})
	withReadinessGate(ds)
	want := []client.Object{
		gateServiceAccount(), gateClusterRoleBinding(),
		ds,
	}
	if diff := cmp.Diff(want, m.Objects(), quantityEqual); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestUninstallReplacesInstall is what the removal flow relies on: the uninstall mode is an update of the install
// mode's DaemonSet (same ManagedResource key, name, namespace and immutable selector; pods rolled one node at a time),
// whose pod template differs, and whose uninstall pods are selectable apart from install pods.
func TestUninstallReplacesInstall(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	for _, gate := range []bool{false, true} {
		install, uninstall := poolValues, poolValues
		install.ReadinessGate, uninstall.ReadinessGate = gate, gate
		uninstall.Mode = render.ModeUninstall
		in, out := daemonSetOf(t, r, install), daemonSetOf(t, r, uninstall)
		if in.key != out.key || in.ds.Name != out.ds.Name || in.ds.Namespace != out.ds.Namespace {
			t.Errorf("gate %v: uninstall renders %s (%s), install %s (%s): the controller could not swap one for the other", gate, out.ds.Name, out.key, in.ds.Name, in.key)
		}
		if diff := cmp.Diff(in.ds.Spec.Selector, out.ds.Spec.Selector); diff != "" {
			t.Errorf("gate %v: selector differs (immutable: the DaemonSet would be recreated, not rolled) (-install +uninstall):\n%s", gate, diff)
		}
		if s := out.ds.Spec.UpdateStrategy; s.Type != appsv1.RollingUpdateDaemonSetStrategyType || s.RollingUpdate.MaxUnavailable.IntValue() != 1 || s.RollingUpdate.MaxSurge != nil {
			t.Errorf("gate %v: update strategy %+v, want RollingUpdate maxUnavailable 1 without surge (never both pods on a node)", gate, s)
		}
		sel, err := metav1.LabelSelectorAsSelector(out.ds.Spec.Selector)
		if err != nil {
			t.Fatal(err)
		}
		if !sel.Matches(labelSet(out.ds.Spec.Template.Labels)) {
			t.Errorf("gate %v: the DaemonSet's selector does not match its uninstall pods", gate)
		}
		if out.ds.Spec.Template.Labels[render.ModeLabel] != string(render.ModeUninstall) || in.ds.Spec.Template.Labels[render.ModeLabel] != "" {
			t.Errorf("gate %v: pod labels install %v, uninstall %v: want %s=uninstall on uninstall pods only", gate,
				in.ds.Spec.Template.Labels, out.ds.Spec.Template.Labels, render.ModeLabel)
		}
	}
}

type renderedDaemonSet struct {
	key string
	ds  *appsv1.DaemonSet
}

func daemonSetOf(t *testing.T, r *render.Renderer, v render.InstallationValues) renderedDaemonSet {
	t.Helper()
	m, err := r.Installation(v)
	if err != nil {
		t.Fatal(err)
	}
	for key := range m.Files() {
		if strings.HasPrefix(key, "daemonset__") {
			for _, obj := range m.Objects() {
				if ds, ok := obj.(*appsv1.DaemonSet); ok {
					return renderedDaemonSet{key: key, ds: ds}
				}
			}
		}
	}
	t.Fatalf("no DaemonSet rendered:\n%s", m.YAML())
	return renderedDaemonSet{}
}

type labelSet map[string]string

func (l labelSet) Has(key string) bool   { _, ok := l[key]; return ok }
func (l labelSet) Get(key string) string { return l[key] }
func (l labelSet) Lookup(key string) (string, bool) {
	v, ok := l[key]
	return v, ok
}

// TestForUninstall: the removal needs only the pool's name, selector and binaryPath; a providerConfig that no longer
// decodes must not block it, while errors in what locates the nodes are configuration errors naming the field.
func TestForUninstall(t *testing.T) {
	broken := containerRuntime("gvisor", `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{"no-such-flag":"x"}}`)
	if _, err := render.ForContainerRuntime(broken); !render.IsConfigurationError(err) {
		t.Fatalf("ForContainerRuntime accepted the broken providerConfig: %v", err)
	}
	got, err := render.ForUninstall(broken)
	if err != nil {
		t.Fatal(err)
	}
	want := render.InstallationValues{WorkerPool: "gvisor", Mode: render.ModeUninstall, BinaryPath: "/var/bin/containerruntimes",
		NodeSelector: poolSelector("gvisor")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	bad := containerRuntime("Not_A_Label", "")
	bad.Spec.BinaryPath = "relative"
	bad.Spec.WorkerPool.Selector = metav1.LabelSelector{}
	bad.Spec.ProviderConfig = &runtime.RawExtension{Raw: []byte("{not json")}
	_, err = render.ForUninstall(bad)
	if !render.IsConfigurationError(err) {
		t.Fatalf("want a ConfigurationError, got %v", err)
	}
	for _, field := range []string{"spec.workerPool.name", "spec.binaryPath", "spec.workerPool.selector"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error does not name %s: %v", field, err)
		}
	}
	if strings.Contains(err.Error(), "providerConfig") {
		t.Errorf("ForUninstall read the providerConfig: %v", err)
	}
}

func TestInstallationMode(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	// The zero value is the install mode, byte for byte.
	explicit := poolValues
	explicit.Mode = render.ModeInstall
	a, err := r.Installation(poolValues)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Installation(explicit)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(a.YAML()), string(b.YAML())); diff != "" {
		t.Errorf("Mode install differs from the zero value:\n%s", diff)
	}

	wrong := poolValues
	wrong.Mode = "remove"
	_, err = r.Installation(wrong)
	if !render.IsConfigurationError(err) || !strings.Contains(err.Error(), `mode: Unsupported value: "remove": supported values: "install", "uninstall"`) {
		t.Errorf("unknown mode: %v", err)
	}
}

// TestShootUninstall renders every pool in uninstall mode and nothing else (the RuntimeClass is not part of it).
func TestShootUninstall(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	m, err := renderShoot(r, render.Settings{}, true, containerRuntime("gvisor-b", ""), containerRuntime("gvisor-a", istio))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"daemonset__kube-system__gvisor-installation-gvisor-a.yaml", "daemonset__kube-system__gvisor-installation-gvisor-b.yaml"}
	if diff := cmp.Diff(want, keys(m.Files())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := renderShoot(r, render.Settings{}, true, containerRuntime("gvisor", ""), containerRuntime("gvisor", "")); !render.IsConfigurationError(err) ||
		!strings.Contains(err.Error(), "spec.workerPool.name: Duplicate value") {
		t.Errorf("two ContainerRuntimes of one pool: %v", err)
	}
}

// TestUninstallUpdatesInstallOnRealAPIServer: on a real kube-apiserver, the uninstall mode's DaemonSet is accepted
// as an update of the install mode's (as gardener-resource-manager sends it when the controller swaps the
// ManagedResource's content), not refused for the immutable selector, which would make gardener-resource-manager
// delete and recreate it (delete-on-invalid-update) and start uninstall pods on every node at once.
func TestUninstallUpdatesInstallOnRealAPIServer(t *testing.T) {
	c, r := realAPIServer(t), newRenderer(t, "v0.0.0-dev", "")
	ctx := context.Background()
	for _, gate := range []bool{false, true} {
		install, uninstall := poolValues, poolValues
		install.WorkerPool = fmt.Sprintf("gate-%v", gate)
		install.ReadinessGate = gate
		uninstall.WorkerPool, uninstall.ReadinessGate, uninstall.Mode = install.WorkerPool, gate, render.ModeUninstall
		in, out := daemonSetOf(t, r, install), daemonSetOf(t, r, uninstall)
		if err := c.Create(ctx, in.ds); err != nil {
			t.Fatal(err)
		}
		out.ds.ResourceVersion = in.ds.ResourceVersion
		if err := c.Update(ctx, out.ds); err != nil {
			t.Fatalf("gate %v: the API server refuses the uninstall DaemonSet as an update of the install one: %v", gate, err)
		}
		got := &appsv1.DaemonSet{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(out.ds), got); err != nil {
			t.Fatal(err)
		}
		if got.UID != in.ds.UID || got.Generation != 2 || installerContainer(got).Command[1] != "uninstall" {
			t.Errorf("gate %v: after the update: uid %s (was %s), generation %d, command %v; want the same object at generation 2 running uninstall",
				gate, got.UID, in.ds.UID, got.Generation, installerContainer(got).Command)
		}
	}
}
