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

// checkMetricServer: the collector (root without capabilities, the runsc root read-only and the socket's emptyDir,
// no port) and the front (its own user, the socket's emptyDir read-only as its only volume, the "metrics" port,
// asking the collector's socket), both from the installation image with a memory limit.
func checkMetricServer(t *testing.T, spec corev1.PodSpec, front corev1.Container) {
	t.Helper()
	i := slices.IndexFunc(spec.Containers, func(c corev1.Container) bool { return c.Name == render.MetricCollectorContainer })
	if i < 0 {
		t.Fatalf("sandbox metrics without the container %s", render.MetricCollectorContainer)
	}
	collector := spec.Containers[i]
	want := []string{"/gvisor-metric-server", "--root=/host" + render.RunscRoot, "--metric-server=" + runscconfig.MetricServerAddress,
		"--listen=" + render.MetricCollectorSocket, "--socket-mode=0666", "--per-pod"}
	if !slices.Equal(collector.Command, want) || collector.Image != spec.Containers[0].Image {
		t.Errorf("collector command %v image %s, want %v in the installation image", collector.Command, collector.Image, want)
	}
	if len(collector.Ports) != 0 {
		t.Errorf("collector ports %+v: it listens on its socket alone", collector.Ports)
	}
	socketVolume := ""
	for _, v := range collector.VolumeMounts {
		switch {
		case v.MountPath == render.MetricCollectorDir && !v.ReadOnly:
			socketVolume = v.Name
		case v.ReadOnly && strings.HasPrefix("/host"+render.RunscRoot, v.MountPath+"/"):
		default:
			t.Errorf("collector mount %+v: want only the runsc root's directory, read-only, and the socket's directory", v)
		}
	}
	vi := slices.IndexFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == socketVolume })
	if vi < 0 || spec.Volumes[vi].EmptyDir == nil {
		t.Fatalf("the collector's socket directory is not an emptyDir of the pod: %q %+v", socketVolume, spec.Volumes)
	}
	checkUnprivileged(t, collector, 0)

	want = []string{"/gvisor-metric-server", "--collector-socket=" + render.MetricCollectorSocket, "--listen=:" + strconv.Itoa(render.MetricServerPort)}
	if !slices.Equal(front.Command, want) || front.Image != spec.Containers[0].Image {
		t.Errorf("front command %v image %s, want %v in the installation image", front.Command, front.Image, want)
	}
	if len(front.Ports) != 1 || front.Ports[0].Name != render.MetricServerPortName || front.Ports[0].ContainerPort != render.MetricServerPort {
		t.Errorf("front ports %+v, want %s %d", front.Ports, render.MetricServerPortName, render.MetricServerPort)
	}
	if len(front.VolumeMounts) != 1 || front.VolumeMounts[0].Name != socketVolume || !front.VolumeMounts[0].ReadOnly ||
		front.VolumeMounts[0].MountPath != render.MetricCollectorDir {
		t.Errorf("front mounts %+v: want the collector's socket directory alone, read-only", front.VolumeMounts)
	}
	checkUnprivileged(t, front, render.MetricFrontUser)
	if sc := front.SecurityContext; sc.RunAsGroup == nil || *sc.RunAsGroup != render.MetricFrontUser || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("front securityContext %+v: want group %d and runAsNonRoot", sc, render.MetricFrontUser)
	}
	if spec.HostPID || spec.HostNetwork || spec.HostIPC {
		t.Errorf("sandbox metrics put the pod into a host namespace")
	}
}

// checkUnprivileged: the container runs as user, with no capability, no escalation, a read-only root and a memory
// limit.
func checkUnprivileged(t *testing.T, c corev1.Container, user int64) {
	t.Helper()
	sc := c.SecurityContext
	if sc == nil || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.RunAsUser == nil || *sc.RunAsUser != user {
		t.Errorf("%s securityContext %+v: want user %d, no capability, no escalation, read-only root", c.Name, sc, user)
	}
	if c.Resources.Limits.Memory().IsZero() {
		t.Errorf("%s has no memory limit", c.Name)
	}
}
