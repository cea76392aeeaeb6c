// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// TestReproveInterval: the idle container re-proves every 5m (the chart's default, DefaultReproveInterval) unless
// the operator sets another interval, for one pool and for a whole shoot; intervals gvisor-idle cannot parse, or
// too short, are refused before anything is rendered.
func TestReproveInterval(t *testing.T) {
	data, err := os.ReadFile("../../charts/internal/gvisor-installation/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var chartValues struct {
		ReproveInterval string `json:"reproveInterval"`
	}
	if err := yaml.Unmarshal(data, &chartValues); err != nil {
		t.Fatal(err)
	}
	if d, err := time.ParseDuration(chartValues.ReproveInterval); err != nil || d != render.DefaultReproveInterval {
		t.Errorf("the chart's reproveInterval %q, DefaultReproveInterval %s", chartValues.ReproveInterval, render.DefaultReproveInterval)
	}

	r := newRenderer(t, "v0.0.0-dev", "")
	runscToml := "[runsc_config]\n  net-raw = \"true\"\n"
	for interval, want := range map[time.Duration]string{0: "5m", 90 * time.Second: "1m30s", time.Hour: "1h", 10 * time.Second: "10s"} {
		v := poolValues
		v.ReproveInterval = interval
		m, err := r.Installation(v)
		if err != nil {
			t.Fatal(err)
		}
		wantObjs := []client.Object{expectedConfigMap("gvisor", runscToml), expectedDaemonSet(dsParams{pool: "gvisor", image: pinnedImage(t),
			binaryPath: "/var/bin/containerruntimes", runscToml: runscToml, reproveInterval: want,
			nodeSelector: map[string]string{"worker.gardener.cloud/cri-name": "containerd", "worker.gardener.cloud/pool": "gvisor"}}), expectedNetworkPolicy("gvisor")}
		if diff := cmp.Diff(wantObjs, m.Objects(), quantityEqual); diff != "" {
			t.Errorf("ReproveInterval=%s (-want +got):\n%s", interval, diff)
		}

		shoot, err := renderShoot(r, render.Settings{ReproveInterval: interval}, false, containerRuntime("gvisor-b", ""), containerRuntime("gvisor-a", istio))
		if err != nil {
			t.Fatal(err)
		}
		for _, ds := range daemonSets(shoot) {
			if got := ds.Spec.Template.Spec.Containers[0].Command[2]; got != "--interval="+want {
				t.Errorf("Settings{ReproveInterval: %s}: DaemonSet %s runs %q, want --interval=%s", interval, ds.Name, got, want)
			}
		}
	}
	for _, bad := range []time.Duration{time.Second, 1500 * time.Millisecond, -time.Minute} {
		v := poolValues
		v.ReproveInterval = bad
		if _, err := r.Installation(v); err == nil || !strings.Contains(err.Error(), "reproveInterval") {
			t.Errorf("ReproveInterval=%s: %v, want refused naming reproveInterval", bad, err)
		}
		if err := render.ValidateReproveInterval(bad); err == nil {
			t.Errorf("ValidateReproveInterval(%s) accepted it", bad)
		}
	}
}
