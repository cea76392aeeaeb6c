// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// fieldCase is one providerConfig the field's extension (github.com/gardener/gardener-extension-runtime-gvisor,
// the one shoots use today) documents, written as the full ContainerRuntime Gardener creates for the Shoot's worker
// pool. Switching a seed to this extension must not break any of them: each must render and give exactly
// runscToml.
type fieldCase struct {
	name      string
	source    string // where the field's extension documents it
	cr        string // the ContainerRuntime, YAML
	runscToml string // the whole runsc.toml the ConfigMap must carry
}

// fieldDebugLog is the path the field's extension writes runsc's debug logs to (its pkg/charts/values.go).
const fieldDebugLog = "/var/log/runsc/%ID%/gvisor-%COMMAND%.log"

// gardenerCR is the ContainerRuntime Gardener creates for worker pool "gvisor" of shoot foo/bar, with the given
// providerConfig lines (indented for spec.providerConfig, or "" for none).
func gardenerCR(providerConfig string) string {
	cr := `apiVersion: extensions.gardener.cloud/v1alpha1
kind: ContainerRuntime
metadata:
  name: gvisor-gvisor
  namespace: shoot--foo--bar
spec:
  type: gvisor
  binaryPath: /var/bin/containerruntimes
  workerPool:
    name: gvisor
    selector:
      matchLabels:
        worker.gardener.cloud/pool: gvisor
`
	if providerConfig != "" {
		cr += "  providerConfig:\n" + providerConfig
	}
	return cr
}

func fieldCases() []fieldCase {
	return []fieldCase{
		{
			name:      "no providerConfig",
			source:    "README.md (Shoot with containerRuntimes: [{type: gvisor}]); issues: wrong default tag, containerd fails to start",
			cr:        gardenerCR(""),
			runscToml: "[runsc_config]\n",
		},
		{
			name:   "debug, net-raw and nvproxy",
			source: "README.md, configFlags example",
			cr: gardenerCR(`    apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
    kind: GVisorConfiguration
    configFlags:
      debug: "true"
      net-raw: "true"
      nvproxy: "true"
`),
			runscToml: "[runsc_config]\n  debug = \"true\"\n  debug-log = \"" + fieldDebugLog + "\"\n  net-raw = \"true\"\n",
		},
		{
			name:   "debug alone",
			source: "README.md, the debug bullet: \"This enables debug logs for runsc. The logs are written to /var/log/runsc/...\"",
			cr: gardenerCR(`    apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
    kind: GVisorConfiguration
    configFlags:
      debug: "true"
`),
			runscToml: "[runsc_config]\n  debug = \"true\"\n  debug-log = \"" + fieldDebugLog + "\"\n",
		},
		{
			name:   "the README's ContainerRuntime",
			source: "README.md, \"Based on the configuration in the shoot manifest the ContainerRuntime resource is created\"",
			cr: `apiVersion: extensions.gardener.cloud/v1alpha1
kind: ContainerRuntime
metadata:
  name: my-container-runtime
spec:
  binaryPath: /var/bin/containerruntimes
  type: gvisor
  providerConfig:
    apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
    configFlags:
      net-raw: "true"
    kind: GVisorConfiguration
  workerPool:
    name: worker-ubuntu
    selector:
      matchLabels:
        worker.gardener.cloud/pool: worker-xyz
`,
			runscToml: "[runsc_config]\n  net-raw = \"true\"\n",
		},
		{
			name:   "testImageTag",
			source: "README.md, \"Testing a Custom Installation Image\" (the tag has no effect here, see docs/usage.md)",
			cr: gardenerCR(`    apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
    kind: GVisorConfiguration
    testImageTag: "my-test-tag"
`),
			runscToml: "[runsc_config]\n",
		},
		{
			name:   "nvproxy",
			source: "README.md, \"NVProxy Usage\"",
			cr: gardenerCR(`    apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
    kind: GVisorConfiguration
    configFlags:
      nvproxy: "true"
`),
			// Each GPU node turns nvproxy on itself once its driver passed the pre-flight; from the pool it would break
			// every sandbox on a node without a supported driver (v1alpha1.NodeDecidedFlags).
			runscToml: "[runsc_config]\n",
		},
		{
			name:   "example/shoot.yaml's commented providerConfig",
			source: "example/shoot.yaml",
			cr: gardenerCR(`    apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
    kind: GVisorConfiguration
    configFlags:
      net-raw: "true"
      nvproxy: "true"
      debug: "true"
`),
			runscToml: "[runsc_config]\n  debug = \"true\"\n  debug-log = \"" + fieldDebugLog + "\"\n  net-raw = \"true\"\n",
		},
		{
			name:   "Istio's net-raw",
			source: "issue \"Enable Istio with gVisor which requires --net-raw=true\"",
			cr: gardenerCR(`    apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
    kind: GVisorConfiguration
    configFlags:
      net-raw: "true"
`),
			runscToml: "[runsc_config]\n  net-raw = \"true\"\n",
		},
		{
			name:   "the chart's default flags, all false",
			source: "charts/internal/gvisor-installation/values.yaml (configFlags: net-raw, debug, nvproxy = \"false\")",
			cr: gardenerCR(`    apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
    kind: GVisorConfiguration
    configFlags:
      net-raw: "false"
      debug: "false"
      nvproxy: "false"
`),
			runscToml: "[runsc_config]\n  debug = \"false\"\n  net-raw = \"false\"\n",
		},
		{
			name:   "empty config: apiVersion and kind only",
			source: "README.md (providerConfig without configFlags)",
			cr: gardenerCR(`    apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
    kind: GVisorConfiguration
`),
			runscToml: "[runsc_config]\n",
		},
		{
			name:   "empty configFlags",
			source: "pkg/charts/charts_test.go (\"no-flags\")",
			cr: gardenerCR(`    apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
    kind: GVisorConfiguration
    configFlags: {}
`),
			runscToml: "[runsc_config]\n",
		},
		{
			name:      "empty providerConfig object",
			source:    "its decoder (UniversalDecoder) accepts {}",
			cr:        gardenerCR("    {}\n"),
			runscToml: "[runsc_config]\n",
		},
		{
			name:   "no apiVersion and kind",
			source: "its decoder fills in apiVersion and kind from the type it decodes into",
			cr: gardenerCR(`    configFlags:
      net-raw: "true"
`),
			runscToml: "[runsc_config]\n  net-raw = \"true\"\n",
		},
	}
}

// decodeCR decodes a ContainerRuntime as the seed's API server stores it: strictly, providerConfig as JSON.
func decodeCR(t *testing.T, doc string) *extensionsv1alpha1.ContainerRuntime {
	t.Helper()
	s := runtime.NewScheme()
	if err := extensionsv1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	obj, _, err := serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer().Decode([]byte(doc), nil, nil)
	if err != nil {
		t.Fatalf("decoding the ContainerRuntime: %v\n%s", err, doc)
	}
	cr, ok := obj.(*extensionsv1alpha1.ContainerRuntime)
	if !ok {
		t.Fatalf("decoded %T, want a ContainerRuntime", obj)
	}
	return cr
}

// TestFieldProviderConfigs renders every providerConfig the field's extension documents, through both ways into
// the renderer (Shoot, as the controller and gvisor-render do, and ForContainerRuntime + Installation, the typed
// values' path), and
// compares the whole runsc.toml, the ConfigMap and the DaemonSet's checksum of it. Two fresh renderers must give
// the same bytes.
func TestFieldProviderConfigs(t *testing.T) {
	for _, c := range fieldCases() {
		t.Run(c.name, func(t *testing.T) {
			cr := decodeCR(t, c.cr)
			pool := cr.Spec.WorkerPool.Name

			// The controller's and gvisor-render's path.
			shoot, err := renderShoot(newRenderer(t, "v0.0.0-dev", ""), render.Settings{}, false, cr)
			if err != nil {
				t.Fatalf("documented by the field's extension (%s), refused here: %v", c.source, err)
			}
			var cm *corev1.ConfigMap
			var ds *appsv1.DaemonSet
			for _, o := range shoot.Objects() {
				switch obj := o.(type) {
				case *corev1.ConfigMap:
					cm = obj
				case *appsv1.DaemonSet:
					ds = obj
				}
			}
			if cm == nil || ds == nil {
				t.Fatalf("no ConfigMap or DaemonSet rendered:\n%s", shoot.YAML())
			}
			if diff := cmp.Diff(expectedConfigMap(pool, c.runscToml), cm); diff != "" {
				t.Errorf("ConfigMap (-want +got):\n%s", diff)
			}
			sum := sha256.Sum256([]byte(c.runscToml))
			if got := ds.Spec.Template.Annotations["checksum/runsc-config"]; got != hex.EncodeToString(sum[:]) {
				t.Errorf("checksum/runsc-config = %s, want the sha256 of the runsc.toml above", got)
			}

			// The typed values' path: the same installation, byte for byte.
			values, err := render.ForContainerRuntime(cr)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := newRenderer(t, "v0.0.0-dev", "").Installation(values)
			if err != nil {
				t.Fatal(err)
			}
			again, err := renderShoot(newRenderer(t, "v0.0.0-dev", ""), render.Settings{}, false, cr)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(again.YAML()), string(shoot.YAML())); diff != "" {
				t.Errorf("two fresh renderers differ:\n%s", diff)
			}
			for key, data := range inst.Files() {
				if got := shoot.Files()[key]; string(got) != string(data) {
					t.Errorf("%s: the typed values' path and Shoot differ:\n%s", key, cmp.Diff(string(data), string(got)))
				}
			}
		})
	}
}

// TestDefaultDebugLogExplicitWins: an explicit debug-log is kept as written, and the default is added only with
// debug or strace "true".
func TestDefaultDebugLogExplicitWins(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	tests := []struct {
		flags map[string]string
		want  string
	}{
		{map[string]string{"debug": "true", "debug-log": "/var/log/runsc/%ID%/"}, "[runsc_config]\n  debug = \"true\"\n  debug-log = \"/var/log/runsc/%ID%/\"\n"},
		{map[string]string{"strace": "true"}, "[runsc_config]\n  debug-log = \"" + fieldDebugLog + "\"\n  strace = \"true\"\n"},
		{map[string]string{"strace": "false", "debug": "false"}, "[runsc_config]\n  debug = \"false\"\n  strace = \"false\"\n"},
	}
	for _, tt := range tests {
		in := map[string]string{}
		for k, v := range tt.flags {
			in[k] = v
		}
		m, err := r.Installation(render.InstallationValues{WorkerPool: "p", BinaryPath: "/var/bin/containerruntimes",
			NodeSelector: map[string]string{"worker.gardener.cloud/pool": "p"}, ConfigFlags: in})
		if err != nil {
			t.Fatalf("%v: %v", tt.flags, err)
		}
		var got string
		for _, o := range m.Objects() {
			if cm, ok := o.(*corev1.ConfigMap); ok {
				got = cm.Data["runsc.toml"]
			}
		}
		if got != tt.want {
			t.Errorf("%v: runsc.toml\n%s\nwant\n%s", tt.flags, got, tt.want)
		}
		if diff := cmp.Diff(tt.flags, in); diff != "" {
			t.Errorf("Installation changed the caller's ConfigFlags (-before +after):\n%s", diff)
		}
	}
}
