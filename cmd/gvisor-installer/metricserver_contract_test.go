// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// TestSandboxMetricsContract: sandbox metrics change nothing of what the installer and the idle container run or
// mount; they add runsc's metric-server flag to the runsc.toml the installer validates and installs (it accepts
// it), and the metric server's containers, which mount none of the installer's host paths writable and neither the
// CRI socket's directory nor systemd's bus: the collector the runsc root read-only, the front no host path at all.
func TestSandboxMetricsContract(t *testing.T) {
	r := newRenderer(t)
	renderPool := func(on bool) (*appsv1.DaemonSet, string) {
		m, err := r.Installation(render.InstallationValues{WorkerPool: "pool", BinaryPath: "/var/bin/containerruntimes",
			ConfigFlags: map[string]string{"net-raw": "true"}, SandboxMetrics: on})
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
		return ds, toml
	}
	off, _ := renderPool(false)
	on, toml := renderPool(true)
	if d := cmp.Diff(off.Spec.Template.Spec.InitContainers, on.Spec.Template.Spec.InitContainers); d != "" {
		t.Errorf("sandbox metrics changed the installer container:\n%s", d)
	}
	if d := cmp.Diff(off.Spec.Template.Spec.Containers[0], on.Spec.Template.Spec.Containers[0]); d != "" {
		t.Errorf("sandbox metrics changed the idle container:\n%s", d)
	}
	flags, err := runscconfig.Validate("runsc.toml", []byte(toml))
	if err != nil || !slices.Equal(flags, []string{"metric-server", "net-raw"}) {
		t.Errorf("the installer does not take the runsc.toml with sandbox metrics: %v %v\n%s", flags, err, toml)
	}
	spec := on.Spec.Template.Spec
	if len(spec.Containers) != 3 || spec.Containers[1].Name != render.MetricCollectorContainer || spec.Containers[2].Name != render.MetricServerContainer {
		t.Fatalf("containers %d: want idle, %s and %s", len(spec.Containers), render.MetricCollectorContainer, render.MetricServerContainer)
	}
	hostPaths := map[string]bool{}
	for _, v := range spec.Volumes {
		hostPaths[v.Name] = v.HostPath != nil
	}
	for i, c := range spec.Containers[1:] {
		for _, m := range c.VolumeMounts {
			runscRoot := i == 0 && m.ReadOnly && m.SubPath == "runsc" && !slices.Contains([]string{"/host/run/containerd", "/host/run/dbus", "/host/etc/containerd"}, m.MountPath)
			if hostPaths[m.Name] && !runscRoot {
				t.Errorf("%s mount %+v: want no host path but, for the collector, the runsc root below /run/containerd, read-only", c.Name, m)
			}
		}
	}
}
