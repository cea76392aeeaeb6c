// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

func TestRuntimeClass(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	tests := []struct {
		name   string
		values render.RuntimeClassValues
		want   client.Object
	}{
		{
			name:   "defaults",
			values: render.RuntimeClassValues{},
			want:   expectedRuntimeClass(map[string]string{"containerruntime.worker.gardener.cloud/gvisor": "true"}, nil, nil),
		},
		{
			name: "custom selector replaces the default, tolerations and overhead",
			values: render.RuntimeClassValues{
				NodeSelector: map[string]string{"example.com/sandbox": "gvisor"},
				Tolerations: []corev1.Toleration{{Key: "sandbox", Operator: corev1.TolerationOpEqual, Value: "gvisor",
					Effect: corev1.TaintEffectNoSchedule}, {Key: "x", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}},
				Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("120Mi"),
				}},
			},
			want: expectedRuntimeClass(map[string]string{"example.com/sandbox": "gvisor"},
				[]corev1.Toleration{{Key: "sandbox", Operator: corev1.TolerationOpEqual, Value: "gvisor", Effect: corev1.TaintEffectNoSchedule},
					{Key: "x", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}},
				&nodev1.Overhead{PodFixed: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("120Mi"),
				}}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := r.RuntimeClass(tt.values)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]client.Object{tt.want}, m.Objects(), quantityEqual); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"runtimeclass____gvisor.yaml"}, keys(m.Files())); diff != "" {
				t.Errorf("Files() keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInstallation(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	affinity := &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"eu-west-1a", "eu-west-1b"}},
		}}},
	}}
	tests := []struct {
		name          string
		values        render.InstallationValues
		wantRunscToml string
		wantDS        dsParams
	}{
		{
			name: "Gardener pool with Istio's net-raw",
			values: render.InstallationValues{
				WorkerPool:   "gvisor",
				BinaryPath:   "/var/bin/containerruntimes",
				NodeSelector: map[string]string{"worker.gardener.cloud/pool": "gvisor"},
				ConfigFlags:  map[string]string{"net-raw": "true"},
			},
			wantRunscToml: "[runsc_config]\n  net-raw = \"true\"\n",
			wantDS: dsParams{pool: "gvisor", image: pinnedImage(t), binaryPath: "/var/bin/containerruntimes",
				nodeSelector: map[string]string{"worker.gardener.cloud/cri-name": "containerd", "worker.gardener.cloud/pool": "gvisor"}},
		},
		{
			name: "no flags, affinity, own tolerations, explicit image, cri-name cannot be overridden",
			values: render.InstallationValues{
				WorkerPool:   "pool-b",
				BinaryPath:   "/opt/bin",
				NodeSelector: map[string]string{"worker.gardener.cloud/cri-name": "docker", "worker.gardener.cloud/pool": "pool-b"},
				NodeAffinity: affinity,
				Tolerations:  []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gvisor", Effect: corev1.TaintEffectNoSchedule}},
				Image:        "registry.example.com/i@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
			},
			wantRunscToml: "[runsc_config]\n",
			wantDS: dsParams{pool: "pool-b", image: "registry.example.com/i@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
				binaryPath:   "/opt/bin",
				nodeSelector: map[string]string{"worker.gardener.cloud/cri-name": "containerd", "worker.gardener.cloud/pool": "pool-b"},
				affinity:     affinity,
				tolerations:  []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gvisor", Effect: corev1.TaintEffectNoSchedule}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := r.Installation(tt.values)
			if err != nil {
				t.Fatal(err)
			}
			p := tt.wantDS
			p.runscToml = tt.wantRunscToml
			want := []client.Object{expectedConfigMap(p.pool, tt.wantRunscToml), expectedDaemonSet(p), expectedNetworkPolicy(p.pool)}
			if diff := cmp.Diff(want, m.Objects(), quantityEqual); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			wantKeys := []string{"configmap__kube-system__gvisor-installation-" + p.pool + "-runsc.yaml", "daemonset__kube-system__gvisor-installation-" + p.pool + ".yaml",
				"networkpolicy__kube-system__gvisor-installation-" + p.pool + ".yaml"}
			if diff := cmp.Diff(wantKeys, keys(m.Files())); diff != "" {
				t.Errorf("Files() keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInstallationValidation(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	ok := render.InstallationValues{WorkerPool: "a", BinaryPath: "/var/bin/containerruntimes", NodeSelector: map[string]string{"worker.gardener.cloud/pool": "a"}}
	tests := []struct {
		name       string
		mutate     func(*render.InstallationValues)
		wantConfig bool // a *ConfigurationError (user input) rather than an internal error
		want       []string
	}{
		{"missing pool", func(v *render.InstallationValues) { v.WorkerPool = "" }, true, []string{"workerPool: Required value"}},
		{"pool not a DNS label", func(v *render.InstallationValues) { v.WorkerPool = "Pool_A" }, true, []string{"workerPool: Invalid value: \"Pool_A\"", "RFC 1123"}},
		{"pool too long", func(v *render.InstallationValues) { v.WorkerPool = strings.Repeat("a", 44) }, true, []string{"workerPool: Too long", "43"}},
		{"relative binary path", func(v *render.InstallationValues) { v.BinaryPath = "var/bin" }, true, []string{"binaryPath: Invalid value", "absolute"}},
		{"unclean binary path", func(v *render.InstallationValues) { v.BinaryPath = "/var/bin/" }, true, []string{"binaryPath", `use "/var/bin"`}},
		{"root binary path", func(v *render.InstallationValues) { v.BinaryPath = "/" }, true, []string{"binaryPath", "root"}},
		{"unsafe binary path", func(v *render.InstallationValues) { v.BinaryPath = "/var/my bin" }, true, []string{"binaryPath", "letters, digits"}},
		{"bad label", func(v *render.InstallationValues) { v.NodeSelector = map[string]string{"a": "b c"} }, true, []string{"nodeSelector", "b c"}},
		{"flag outside the allowlist", func(v *render.InstallationValues) { v.ConfigFlags = map[string]string{"network": "host"} }, true, []string{"configFlags[network]: Invalid", "allowed flags"}},
		{"schema rejects a bad toleration operator", func(v *render.InstallationValues) {
			v.Tolerations = []corev1.Toleration{{Operator: "Sometimes"}}
		}, false, []string{"gvisor-installation", "values.schema.json", "/tolerations/0/operator"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := ok
			tt.mutate(&v)
			_, err := r.Installation(v)
			if err == nil {
				t.Fatal("Installation() succeeded, want an error")
			}
			if got := render.IsConfigurationError(err); got != tt.wantConfig {
				t.Errorf("IsConfigurationError(%v) = %v, want %v", err, got, tt.wantConfig)
			}
			for _, s := range tt.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

// TestTemplateTypoFails renders a copy of the embedded charts with a misspelt field in the DaemonSet template:
// strict decoding must turn it into an error naming the file and the field.
func TestTemplateTypoFails(t *testing.T) {
	fsys := fstest.MapFS{}
	copyCharts(t, fsys)
	ds := fsys["internal/gvisor-installation/templates/daemonset.yaml"]
	ds.Data = []byte(strings.Replace(string(ds.Data), "priorityClassName:", "priorityClass:", 1))
	r, err := render.NewFromFS(fsys, mustLoad(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Installation(render.InstallationValues{WorkerPool: "a", BinaryPath: "/var/bin/containerruntimes", NodeSelector: map[string]string{"a": "b"}})
	if err == nil || !strings.Contains(err.Error(), "daemonset.yaml") || !strings.Contains(err.Error(), `unknown field "spec.template.spec.priorityClass"`) {
		t.Fatalf("Installation() error = %v, want a strict decoding error naming daemonset.yaml and the field", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	want, err := r.Installation(render.InstallationValues{WorkerPool: "a", BinaryPath: "/var/bin/containerruntimes", NodeSelector: map[string]string{"a": "b"}, ConfigFlags: map[string]string{"debug": "true", "debug-log": "/var/log/runsc/"}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := r.Installation(render.InstallationValues{WorkerPool: "a", BinaryPath: "/var/bin/containerruntimes", NodeSelector: map[string]string{"a": "b"}, ConfigFlags: map[string]string{"debug-log": "/var/log/runsc/", "debug": "true"}})
			if err == nil && string(m.YAML()) != string(want.YAML()) {
				err = errMismatch
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
