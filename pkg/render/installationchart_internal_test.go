// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/charts"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// chartDefaults are the installation chart's values.yaml, as JSON.
func chartDefaults(t *testing.T) []byte {
	t.Helper()
	data, err := charts.Internal.ReadFile(path.Join(charts.InstallationChartPath, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatalf("values.yaml: %v", err)
	}
	return js
}

// keys are the top-level keys of a JSON object, sorted.
func keys(t *testing.T, js []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestInstallationChartValuesAreValuesYAML: the typed values and the chart's values.yaml cannot disagree. Every key
// of values.yaml is a field of installationChartValues of the same shape (values.yaml decodes into it, unknown keys
// refused), every field is a key of values.yaml, and where the renderer decides a value for a caller who said
// nothing, it decides values.yaml's default.
func TestInstallationChartValuesAreValuesYAML(t *testing.T) {
	defaults := chartDefaults(t)
	var fromChart installationChartValues
	dec := json.NewDecoder(bytes.NewReader(defaults))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fromChart); err != nil {
		t.Fatalf("values.yaml does not decode into installationChartValues (a key the struct lacks, or another shape): %v", err)
	}

	full := installationChartValues{
		WorkerPool: "p", Mode: ModeInstall, Image: "i", BinaryPath: "/b", NodeSelector: map[string]string{"a": "b"},
		NodeAffinity: &corev1.NodeAffinity{}, RunscToml: "t", Tolerations: []corev1.Toleration{{Operator: "Exists"}},
		Resources: &corev1.ResourceRequirements{}, ReleaseSums: map[string]string{"amd64": "s"}, ReproveInterval: "5m",
	}
	js, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(keys(t, defaults), keys(t, js)); diff != "" {
		t.Errorf("values.yaml's keys (-) and installationChartValues' (+) differ:\n%s", diff)
	}

	// A pool that says nothing: the renderer's decisions are the chart's defaults.
	decided := installationChart(InstallationValues{}, &NodeConfig{NVProxy: runscconfig.NVProxy(nil)})
	for _, c := range []struct {
		value          string
		chart, decided any
	}{
		{"mode", fromChart.Mode, decided.Mode},
		{"proveSandbox", fromChart.ProveSandbox, decided.ProveSandbox},
		{"nvproxy", fromChart.NVProxy, decided.NVProxy},
		{"nvproxy (runscconfig.DefaultNVProxy)", fromChart.NVProxy, runscconfig.DefaultNVProxy},
		{"reproveInterval", fromChart.ReproveInterval, decided.ReproveInterval},
		{"readinessGate", fromChart.ReadinessGate, decided.ReadinessGate},
		{"sandboxMetrics", fromChart.SandboxMetrics, decided.SandboxMetrics},
	} {
		if c.chart != c.decided {
			t.Errorf("%s: values.yaml says %v, the renderer decides %v for a pool that says nothing", c.value, c.chart, c.decided)
		}
	}
	if got, err := time.ParseDuration(fromChart.ReproveInterval); err != nil || got != DefaultReproveInterval {
		t.Errorf("values.yaml's reproveInterval %q is not DefaultReproveInterval %s", fromChart.ReproveInterval, DefaultReproveInterval)
	}
}
