// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"slices"
	"strings"
	"testing"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// TestNodeConfigIsTheSameInBothModes: what a pool's nodes get (image, runsc.toml's flags table, sandbox metrics,
// the debug logs' keeper, release sums) does not depend on the delivery mode, and in the DaemonSet mode it is exactly what the installation
// chart carries: the ConfigMap's runsc.toml and SHA512SUMS, the installer's image, the metric server and debug-logs containers.
func TestNodeConfigIsTheSameInBothModes(t *testing.T) {
	r := newRenderer(t, "v0.1.0-dev", "")
	in := func() render.ShootInput {
		return render.ShootInput{ContainerRuntimes: []*extensionsv1alpha1.ContainerRuntime{
			containerRuntime("gvisor", `{"configFlags":{"net-raw":"true","debug":"true"},"sandboxMetrics":{"enabled":true}}`),
		}, KubernetesVersion: "1.33.4", Architectures: map[string]string{"gvisor": "arm64"}}
	}
	ds, err := r.Shoot(render.Settings{DeliveryMode: delivery.DaemonSet}, in())
	if err != nil {
		t.Fatal(err)
	}
	osc, err := r.Shoot(render.Settings{DeliveryMode: delivery.OperatingSystemConfig}, in())
	if err != nil {
		t.Fatal(err)
	}
	node := ds.Pools[0].Node
	if node == nil || osc.Pools[0].Node == nil || osc.Pools[0].Installation != nil {
		t.Fatalf("Node: DaemonSet mode %v, OSC mode %v (installation %v)", node, osc.Pools[0].Node, osc.Pools[0].Installation)
	}
	if diff := cmp.Diff(node, osc.Pools[0].Node); diff != "" {
		t.Errorf("the OSC mode's nodes get something else (-DaemonSet +OSC):\n%s", diff)
	}
	want := "[runsc_config]\n  debug = \"true\"\n  debug-log = \"" + v1alpha1.DefaultDebugLog + "\"\n  metric-server = \"" + runscconfig.MetricServerAddress + "\"\n  net-raw = \"true\"\n"
	if string(node.RunscConfig) != want || !node.SandboxMetrics || !node.DebugLogs || !node.NVProxy || len(node.ReleaseSums) != 1 || node.ReleaseSums["arm64"] == "" {
		t.Errorf("Node = %+v, want runsc.toml %q, sandbox metrics, the debug logs' keeper, GPU nodes checked and arm64's sums only", node, want)
	}
	var carried render.NodeConfig
	for _, o := range ds.Pools[0].Installation.Objects() {
		switch x := o.(type) {
		case *corev1.ConfigMap:
			carried.RunscConfig = []byte(x.Data[runscconfig.FileName])
			carried.ReleaseSums = map[string]string{"arm64": x.Data["SHA512SUMS.arm64"]}
		case *appsv1.DaemonSet:
			carried.Image = x.Spec.Template.Spec.Containers[0].Image
			carried.NVProxy = slices.Contains(x.Spec.Template.Spec.InitContainers[0].Command, "--nvproxy-preflight-image="+carried.Image)
			for _, c := range x.Spec.Template.Spec.Containers {
				carried.SandboxMetrics = carried.SandboxMetrics || c.Name == render.MetricServerContainer
				carried.DebugLogs = carried.DebugLogs || c.Name == render.DebugLogsContainer
			}
		}
	}
	if diff := cmp.Diff(*node, carried); diff != "" {
		t.Errorf("the installation chart carries something else (-Node +chart):\n%s", diff)
	}
}

// TestNodeConfigRefusesAnArchitectureWithoutRelease: in either mode a pool whose architecture has no gVisor release
// sums (no installation image is built for it) is refused, naming the fix.
func TestNodeConfigRefusesAnArchitectureWithoutRelease(t *testing.T) {
	r := newRenderer(t, "v0.1.0-dev", "")
	for _, mode := range []delivery.Mode{delivery.DaemonSet, delivery.OperatingSystemConfig} {
		_, err := r.Shoot(render.Settings{DeliveryMode: mode}, render.ShootInput{
			ContainerRuntimes: []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor", "")},
			Architectures:     map[string]string{"gvisor": "s390x"},
		})
		if err == nil || !strings.Contains(err.Error(), `"s390x" has no gVisor release sums`) || !strings.Contains(err.Error(), "build the installation image for it") {
			t.Errorf("%s mode: err = %v, want the architecture refused with the fix", mode, err)
		}
	}
}

// TestNodeConfigGPU: every pool's GPU nodes have their driver judged and turn nvproxy on themselves; runsc.toml never
// carries nvproxy. `nvproxy: "true"` (the field's extension's GPU setting) changes nothing; `nvproxy: "false"` opts
// the pool out: no pre-flight, no /dev in the installer.
func TestNodeConfigGPU(t *testing.T) {
	r := newRenderer(t, "v0.1.0-dev", "")
	for _, c := range []struct {
		providerConfig string
		gpu            bool
	}{
		{"", true},
		{`{"configFlags":{"nvproxy":"true"}}`, true},
		{`{"configFlags":{"nvproxy":"false","net-raw":"true"}}`, false},
	} {
		objs, err := r.Shoot(render.Settings{DeliveryMode: delivery.DaemonSet}, render.ShootInput{
			ContainerRuntimes: []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor", c.providerConfig)}, KubernetesVersion: "1.33.4",
		})
		if err != nil {
			t.Fatal(err)
		}
		node := objs.Pools[0].Node
		if node.NVProxy != c.gpu || strings.Contains(string(node.RunscConfig), "nvproxy") {
			t.Errorf("%s: Node.NVProxy = %v, runsc.toml %q; want NVProxy %v and no nvproxy", c.providerConfig, node.NVProxy, node.RunscConfig, c.gpu)
		}
		for _, o := range objs.Pools[0].Installation.Objects() {
			ds, ok := o.(*appsv1.DaemonSet)
			if !ok {
				continue
			}
			installer := ds.Spec.Template.Spec.InitContainers[0]
			preflight := slices.Contains(installer.Command, "--nvproxy-preflight-image="+node.Image)
			dev := slices.ContainsFunc(installer.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/host/dev" && m.ReadOnly })
			if preflight != c.gpu || dev != c.gpu {
				t.Errorf("%s: installer pre-flight %v, /host/dev read-only %v; want both %v", c.providerConfig, preflight, dev, c.gpu)
			}
		}
	}
}
