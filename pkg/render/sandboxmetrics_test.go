// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// TestSandboxMetricsInstallation: with sandboxMetrics the chart puts runsc's metric-server flag, with the value of
// runscconfig.MetricServerAddress, into runsc.toml (sorted among the pool's flags, valid for the installer) and runs the
// metric server with the same --metric-server, on render.MetricServerPort named "metrics", root without
// capabilities, the shim's runsc root read-only as its only host path and no host namespace. Off: neither.
func TestSandboxMetricsInstallation(t *testing.T) {
	r := newRenderer(t, "v0.1.0-dev", "")
	for _, on := range []bool{false, true} {
		m, err := r.Installation(render.InstallationValues{WorkerPool: "pool", BinaryPath: "/var/bin/containerruntimes",
			ConfigFlags: map[string]string{"net-raw": "true", "debug": "true"}, SandboxMetrics: on})
		if err != nil {
			t.Fatal(err)
		}
		var ds *appsv1.DaemonSet
		var toml string
		for _, o := range m.Objects() {
			switch x := o.(type) {
			case *appsv1.DaemonSet:
				ds = x
			case *corev1.ConfigMap:
				toml = x.Data["runsc.toml"]
			}
		}
		flags, err := runscconfig.Validate("runsc.toml", []byte(toml))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"debug", "debug-log", "net-raw"}
		if on {
			want = []string{"debug", "debug-log", v1alpha1.MetricServerFlag, "net-raw"}
		}
		if !slices.Equal(flags, want) || on != strings.Contains(toml, `metric-server = "`+runscconfig.MetricServerAddress+`"`) {
			t.Errorf("sandboxMetrics %v: runsc.toml flags %v, want %v:\n%s", on, flags, want, toml)
		}
		spec := ds.Spec.Template.Spec
		i := slices.IndexFunc(spec.Containers, func(c corev1.Container) bool { return c.Name == render.MetricServerContainer })
		if !on {
			if i >= 0 {
				t.Errorf("sandboxMetrics off renders the container %s", render.MetricServerContainer)
			}
			continue
		}
		if i < 0 {
			t.Fatalf("sandboxMetrics on renders no container %s: %s", render.MetricServerContainer, m.YAML())
		}
		checkMetricServer(t, spec, spec.Containers[i])
	}
}

func checkMetricServer(t *testing.T, spec corev1.PodSpec, c corev1.Container) {
	t.Helper()
	want := []string{"/gvisor-metric-server", "--root=/host" + render.RunscRoot, "--metric-server=" + runscconfig.MetricServerAddress,
		"--listen=:" + strconv.Itoa(render.MetricServerPort), "--per-pod"}
	if !slices.Equal(c.Command, want) || c.Image != spec.Containers[0].Image {
		t.Errorf("metric server command %v image %s, want %v in the installation image", c.Command, c.Image, want)
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != render.MetricServerPortName || c.Ports[0].ContainerPort != render.MetricServerPort {
		t.Errorf("metric server ports %+v, want %s %d", c.Ports, render.MetricServerPortName, render.MetricServerPort)
	}
	if len(c.VolumeMounts) != 1 || !c.VolumeMounts[0].ReadOnly || !strings.HasPrefix("/host"+render.RunscRoot, c.VolumeMounts[0].MountPath+"/") {
		t.Errorf("metric server mounts %+v: want only the runsc root's directory, read-only", c.VolumeMounts)
	}
	sc := c.SecurityContext
	if sc == nil || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("metric server securityContext %+v: want no capability, no escalation, read-only root", sc)
	}
	if c.Resources.Limits.Memory().IsZero() {
		t.Errorf("metric server has no memory limit")
	}
	if spec.HostPID || spec.HostNetwork || spec.HostIPC {
		t.Errorf("sandbox metrics put the pod into a host namespace")
	}
}
