// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// targetVersionOverwrite pins another installation image for shoots below 1.30 (Gardener's targetVersion).
const targetVersionOverwrite = `images:
- name: runtime-gvisor-installation
  repository: registry.example.com/old-shoots/runtime-gvisor-installation
  tag: v0.1.0
  targetVersion: "< 1.30"
`

// shootCase is one input of the CLI-vs-controller table: ContainerRuntimes of one shoot, what its Cluster says and
// the operator's settings.
type shootCase struct {
	name      string
	file      string            // ContainerRuntime manifest(s), relative to the repository root
	version   string            // the shoot's Kubernetes version
	archs     map[string]string // pool -> machine architecture
	settings  render.Settings
	overwrite string // image vector overwrite content; empty: none
	uninstall bool
}

func shootCases() []shootCase {
	const one, two = "example/containerruntime.yaml", "example/containerruntimes-two-pools.yaml"
	gate := render.Settings{ReadinessGate: true}
	osc := render.Settings{ReadinessGate: true, DeliveryMode: delivery.OperatingSystemConfig}
	return []shootCase{
		{name: "1.33", file: one, version: "1.33.4"},
		{name: "1.33-readiness-gate", file: one, version: "1.33.4", settings: gate},
		{name: "1.30-readiness-gate", file: one, version: "1.30.0", settings: gate},
		{name: "1.29-readiness-gate-off", file: one, version: "1.29.15", settings: gate},
		{name: "unknown-version-readiness-gate-off", file: one, settings: gate},
		{name: "1.29-targetversion", file: one, version: "1.29.15", overwrite: targetVersionOverwrite},
		{name: "1.33-targetversion", file: one, version: "1.33.4", overwrite: targetVersionOverwrite},
		{name: "arm64", file: one, version: "1.33.4", archs: map[string]string{"worker-gvisor": "arm64"}},
		{name: "two-pools-arm64-gate-no-proof", file: two, version: "1.34.1", archs: map[string]string{"debug": "arm64", "istio": "amd64"},
			settings: render.Settings{ReadinessGate: true, SkipSandboxProof: true}},
		{name: "operatingsystemconfig", file: two, version: "1.33.4", settings: osc},
		{name: "sandbox-metrics", file: two, version: "1.33.4", settings: render.Settings{SandboxMetrics: true}},
		{name: "uninstall", file: one, version: "1.33.4", uninstall: true},
		{name: "uninstall-readiness-gate", file: two, version: "1.33.4", settings: gate, uninstall: true},
		{name: "uninstall-1.29-readiness-gate-off", file: one, version: "1.29.15", settings: gate, uninstall: true},
		{name: "uninstall-operatingsystemconfig", file: one, version: "1.33.4", settings: osc, uninstall: true},
	}
}

// args is the case as gvisor-render's command line.
func (c shootCase) args(root, overwrite string) []string {
	args := []string{"-f", filepath.Join(root, c.file), "--kubernetes-version", c.version, "--image-vector-overwrite", overwrite,
		"--readiness-gate=" + strconv.FormatBool(c.settings.ReadinessGate), "--prove-sandbox=" + strconv.FormatBool(!c.settings.SkipSandboxProof)}
	if c.settings.DeliveryMode != "" {
		args = append(args, "--delivery-mode", string(c.settings.DeliveryMode))
	}
	if c.settings.SandboxMetrics {
		args = append(args, "--sandbox-metrics")
	}
	for _, pool := range slices.Sorted(maps.Keys(c.archs)) {
		args = append(args, "--architecture", pool+"="+c.archs[pool])
	}
	if c.uninstall {
		args = append(args, "--uninstall")
	}
	return args
}

// cluster is the Cluster the extension library passes the actuator for the case's shoot.
func (c shootCase) cluster() *extensionscontroller.Cluster {
	var workers []gardencorev1beta1.Worker
	for _, pool := range slices.Sorted(maps.Keys(c.archs)) {
		w := gardenerfixtures.Worker(pool, gardenerfixtures.GVisor(nil))
		w.Machine.Architecture = ptr.To(c.archs[pool])
		workers = append(workers, w)
	}
	return clusterOf(shootOf(c.version, workers...))
}

// controllerObjects is what the actuator deploys for every ContainerRuntime of the case, one reconcile (or
// uninstall) each: the shoot-wide ManagedResource's files (the same for every pool) and each pool's, merged.
func (c shootCase) controllerObjects(t *testing.T, a *Actuator, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var shootWide map[string][]byte
	for _, cr := range readContainerRuntimes(t, filepath.Join(root, c.file)) {
		shoot, pool, err := a.desired(logr.Discard(), cr, c.cluster(), c.uninstall)
		if err != nil {
			t.Fatal(err)
		}
		if shoot.RuntimeClass != nil {
			files := shoot.RuntimeClass.Files()
			if shootWide != nil && !cmp.Equal(shootWide, files) {
				t.Fatalf("pool %s: the shoot-wide ManagedResource differs from another pool's", pool.Pool)
			}
			shootWide = files
		}
		if pool.Installation != nil {
			mergeInto(t, out, pool.Installation.Files())
		}
	}
	mergeInto(t, out, shootWide)
	return out
}

// TestCLIRendersWhatTheControllerDeploys: for every case, gvisor-render (the built binary) prints
// byte for byte the objects the controller's actuator puts into the shoot's ManagedResources. The CLI's output is
// kept in testdata/shoot/<case>.yaml (`make snapshots`, i.e. UPDATE_SNAPSHOTS=1, regenerates it; review the diff).
func TestCLIRendersWhatTheControllerDeploys(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range shootCases() {
		t.Run(c.name, func(t *testing.T) {
			overwrite := ""
			if c.overwrite != "" {
				overwrite = filepath.Join(t.TempDir(), "images_overwrite.yaml")
				if err := os.WriteFile(overwrite, []byte(c.overwrite), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			stream := runCLI(t, c.args(root, overwrite)...)
			testutil.Golden(t, filepath.Join("testdata", "shoot", c.name+".yaml"), string(stream))

			renderer, err := render.Load(cliVersion, overwrite) // what the controller's main does, with $IMAGEVECTOR_OVERWRITE
			if err != nil {
				t.Fatal(err)
			}
			a := NewActuator(ActuatorOptions{Renderer: renderer, Settings: Settings{Render: c.settings}})
			want := c.controllerObjects(t, a, root)
			got := splitObjects(t, stream)
			if diff := cmp.Diff(stringMap(want), stringMap(got)); diff != "" {
				t.Errorf("gvisor-render %s differs from what the controller deploys (-controller +cli):\n%s", strings.Join(c.args(root, overwrite), " "), diff)
			}
		})
	}
}

func mergeInto(t *testing.T, dst, src map[string][]byte) {
	t.Helper()
	for k, v := range src {
		if _, dup := dst[k]; dup {
			t.Fatalf("%s is in two ManagedResources", k)
		}
		dst[k] = v
	}
}

func stringMap(m map[string][]byte) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}
