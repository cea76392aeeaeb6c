// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/shootprometheus"
)

// judgeHeld takes an alert that is pending on the real shoot Prometheus and the series its rule reads (query), as
// the Prometheus has them now, and lets promtool evaluate the rule files that Prometheus loaded on those series held
// at their values: the alert must not fire one minute before its for (forDuration) and must fire one minute after
// it, with exactly the labels and annotations the Prometheus gave it. A test on a real node cannot wait the 15
// minutes; the failure it holds is real.
func judgeHeld(t *testing.T, p *shootprometheus.Prometheus, alertname, query string, forDuration time.Duration) {
	t.Helper()
	alerts, err := p.Alerts()
	if err != nil {
		t.Fatal(err)
	}
	var pending *shootprometheus.Alert
	for i, a := range alerts {
		if a.Labels["alertname"] == alertname && a.State == "pending" {
			pending = &alerts[i]
		}
	}
	if pending == nil {
		t.Fatalf("%s is not pending on the shoot Prometheus: %+v", alertname, alerts)
	}
	series, err := p.Query(query)
	if err != nil || len(series) == 0 {
		t.Fatalf("the series of %s (%s) on the shoot Prometheus: %+v %v", alertname, query, series, err)
	}
	minutes := int((forDuration + 5*time.Minute) / time.Minute)
	var input []map[string]string
	for _, s := range series {
		input = append(input, map[string]string{"series": selector(s.Metric), "values": fmt.Sprintf("%sx%d", strconv.FormatFloat(s.Float(), 'f', -1, 64), minutes)})
	}
	labels := maps.Clone(pending.Labels)
	delete(labels, "alertname")
	before, after := forDuration-time.Minute, forDuration+time.Minute
	test := map[string]any{
		"rule_files":          []string{p.RuleFiles()},
		"evaluation_interval": "1m",
		"tests": []any{map[string]any{
			"interval":     "1m",
			"input_series": input,
			"alert_rule_test": []any{
				map[string]any{"alertname": alertname, "eval_time": before.String(), "exp_alerts": []any{}},
				map[string]any{"alertname": alertname, "eval_time": after.String(), "exp_alerts": []any{
					map[string]any{"exp_labels": labels, "exp_annotations": pending.Annotations},
				}},
			},
		}},
	}
	raw, err := yaml.Marshal(test)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "held.test.yaml")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	promtool := realcomponents.Env(t, "GVISOR_TEST_PROMTOOL", "tool-promtool")
	out, err := exec.Command(promtool, "test", "rules", path).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules: %s on the shoot Prometheus' series held for %s: %v\n%s\ntest file:\n%s", alertname, after, err, out, raw)
	}
	t.Logf("promtool: %s, pending on the real series of the failure, fires after its %s when they stay so (%d series held)", alertname, forDuration, len(series))
}

// selector writes a series' labels as a PromQL series selector (metric name first).
func selector(metric map[string]string) string {
	var labels []string
	for _, k := range slices.Sorted(maps.Keys(metric)) {
		if k != "__name__" {
			labels = append(labels, k+"="+strconv.Quote(metric[k]))
		}
	}
	return metric["__name__"] + "{" + strings.Join(labels, ", ") + "}"
}
