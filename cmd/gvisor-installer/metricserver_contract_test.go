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
// it), and a metric server container that mounts none of the installer's host paths writable and neither the CRI
// socket's directory nor systemd's bus.
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
	cs := on.Spec.Template.Spec.Containers
	if len(cs) != 2 || cs[1].Name != "metric-server" {
		t.Fatalf("containers %d: want idle and metric-server", len(cs))
	}
	for _, m := range cs[1].VolumeMounts {
		if !m.ReadOnly || m.SubPath != "runsc" || slices.Contains([]string{"/host/run/containerd", "/host/run/dbus", "/host/etc/containerd"}, m.MountPath) {
			t.Errorf("metric server mount %+v: want only the runsc root below /run/containerd, read-only", m)
		}
	}
}
