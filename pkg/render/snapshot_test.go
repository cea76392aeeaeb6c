// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"os"
	"path/filepath"
	"testing"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

const everyFlag = `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{` +
	`"cpu-num-from-quota":"false","debug":"true","debug-log":"/var/log/runsc/%ID%/","directfs":"false","file-access":"exclusive",` +
	`"net-raw":"true","nvproxy":"true","nvproxy-allowed-driver-capabilities":"compute,utility,graphics","overlay2":"root:self,size=1g","panic-signal":"12","platform":"ptrace",` +
	`"strace":"false","watchdog-action":"panic"}}`

// snapshotCase is one input of the snapshot matrix: the ContainerRuntimes of one shoot, the build version and an
// optional image vector overwrite.
type snapshotCase struct {
	name      string
	version   string
	overwrite string // content of the overwrite file; empty: none
	crs       func() []*extensionsv1alpha1.ContainerRuntime
	opts      render.Settings
	uninstall bool // render the pools' removal (ShootInput.Uninstall)
}

func snapshotCases() []snapshotCase {
	one := func() []*extensionsv1alpha1.ContainerRuntime {
		return []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor", istio)}
	}
	return []snapshotCase{
		{name: "one-pool", version: "v0.1.0-dev", crs: one},
		{name: "two-pools", version: "v0.1.0-dev", crs: func() []*extensionsv1alpha1.ContainerRuntime {
			return []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor-b", ""), containerRuntime("gvisor-a", istio)}
		}},
		{name: "every-flag", version: "v0.1.0-dev", crs: func() []*extensionsv1alpha1.ContainerRuntime {
			return []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor", everyFlag)}
		}},
		{name: "custom-selectors", version: "v0.1.0-dev", crs: func() []*extensionsv1alpha1.ContainerRuntime {
			cr := containerRuntime("gpu", istio)
			cr.Spec.BinaryPath = "/opt/containerruntimes"
			cr.Spec.WorkerPool.Selector = metav1.LabelSelector{
				MatchLabels: map[string]string{"worker.gardener.cloud/pool": "gpu", "example.com/sandbox": "gvisor"},
				MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "topology.kubernetes.io/zone", Operator: metav1.LabelSelectorOpIn, Values: []string{"eu-west-1a", "eu-west-1b"}},
					{Key: "example.com/maintenance", Operator: metav1.LabelSelectorOpDoesNotExist},
				},
			}
			return []*extensionsv1alpha1.ContainerRuntime{cr}
		}},
		{name: "overwrite-tag", version: "v0.1.0-dev", crs: one, overwrite: `images:
- name: runtime-gvisor-installation
  repository: registry.example.com/mirror/runtime-gvisor-installation
  tag: v0.1.1
`},
		{name: "overwrite-ref", version: "v9.8.7", crs: one, overwrite: `images:
- name: runtime-gvisor-installation
  ref: registry.example.com/gvisor/installation@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
`},
		{name: "release-version", version: "v9.8.7", crs: one},
		{name: "dev-dirty-version", version: "v0.2.0-dev-dirty", crs: one},
		{name: "unstamped-version", version: "v0.0.0-dev", crs: one},
		{name: "readiness-gate", version: "v0.1.0-dev", opts: render.Settings{ReadinessGate: true}, crs: func() []*extensionsv1alpha1.ContainerRuntime {
			return []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor-b", ""), containerRuntime("gvisor-a", istio)}
		}},
		// The landscape's default on: gvisor-a takes it, gvisor-b's providerConfig turns it off for its pool.
		{name: "sandbox-metrics", version: "v0.1.0-dev", opts: render.Settings{SandboxMetrics: true}, crs: func() []*extensionsv1alpha1.ContainerRuntime {
			return []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor-b", `{"sandboxMetrics":{"enabled":false}}`), containerRuntime("gvisor-a", istio)}
		}},
		// The landscape's default off: the pool's providerConfig turns it on.
		{name: "sandbox-metrics-pool", version: "v0.1.0-dev", crs: func() []*extensionsv1alpha1.ContainerRuntime {
			return []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor", `{"configFlags":{"net-raw":"true"},"sandboxMetrics":{"enabled":true}}`)}
		}},
		// Uninstall renders no metric server and no runsc.toml, whatever the settings say.
		{name: "uninstall-sandbox-metrics", version: "v0.1.0-dev", uninstall: true, opts: render.Settings{SandboxMetrics: true}, crs: func() []*extensionsv1alpha1.ContainerRuntime {
			return []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor", `{"sandboxMetrics":{"enabled":true}}`)}
		}},
		{name: "uninstall", version: "v0.1.0-dev", uninstall: true, crs: func() []*extensionsv1alpha1.ContainerRuntime {
			return []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor", everyFlag)}
		}},
		{name: "uninstall-readiness-gate", version: "v0.1.0-dev", uninstall: true, opts: render.Settings{ReadinessGate: true}, crs: func() []*extensionsv1alpha1.ContainerRuntime {
			return []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor-b", ""), containerRuntime("gvisor-a", istio)}
		}},
	}
}

func (c snapshotCase) render(t *testing.T) []byte {
	t.Helper()
	var overwrite string
	if c.overwrite != "" {
		overwrite = filepath.Join(t.TempDir(), "images_overwrite.yaml")
		if err := os.WriteFile(overwrite, []byte(c.overwrite), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := newRenderer(t, c.version, overwrite)
	m, err := renderShoot(r, c.opts, c.uninstall, c.crs()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range m.Objects() {
		if ds, ok := obj.(*appsv1.DaemonSet); ok {
			for _, ctr := range append(ds.Spec.Template.Spec.InitContainers, ds.Spec.Template.Spec.Containers...) {
				if err := imagevector.CheckReference(ctr.Image); err != nil {
					t.Errorf("DaemonSet %s: %v", ds.Name, err)
				}
			}
		}
	}
	return m.YAML()
}

// TestSnapshots compares the rendered output of each case with testdata/<case>.yaml.
// Regenerate with `make snapshots` (UPDATE_SNAPSHOTS=1) and review the diff.
func TestSnapshots(t *testing.T) {
	for _, c := range snapshotCases() {
		t.Run(c.name, func(t *testing.T) {
			testutil.Golden(t, filepath.Join("testdata", c.name+".yaml"), string(c.render(t)))
		})
	}
}

// TestDeterminism renders every case twice, with fresh renderers, and expects identical bytes.
func TestDeterminism(t *testing.T) {
	for _, c := range snapshotCases() {
		t.Run(c.name, func(t *testing.T) {
			if a, b := c.render(t), c.render(t); string(a) != string(b) {
				t.Errorf("two renders differ:\n%s", cmp.Diff(string(a), string(b)))
			}
		})
	}
}

// TestFlagOrderIrrelevant: the same flags written in another order (in the providerConfig, and pools listed in
// another order) give the same bytes, so the checksum annotation does not roll the DaemonSet for nothing.
func TestFlagOrderIrrelevant(t *testing.T) {
	r := newRenderer(t, "v0.1.0-dev", "")
	forward := `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{"debug":"true","debug-log":"/var/log/runsc/","net-raw":"true","platform":"ptrace"}}`
	backward := "apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1\nkind: GVisorConfiguration\nconfigFlags:\n  platform: ptrace\n  net-raw: \"true\"\n  debug-log: /var/log/runsc/\n  debug: \"true\"\n"
	a, err := renderShoot(r, render.Settings{}, false, containerRuntime("a", forward), containerRuntime("b", istio))
	if err != nil {
		t.Fatal(err)
	}
	b, err := renderShoot(r, render.Settings{}, false, containerRuntime("b", istio), containerRuntime("a", backward))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(a.YAML()), string(b.YAML())); diff != "" {
		t.Errorf("flag order changed the output (-forward +backward):\n%s", diff)
	}
}
