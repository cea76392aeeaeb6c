// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/promrules"
)

// scrapeTargetLabels are the labels the shoot Prometheus' scrape (pkg/monitoring.ScrapeConfig's relabelings) gives
// every series of a node's installation pod: its job and type, the pod, its node and its pool; instance is the
// address it scrapes, the API server's pod proxy.
var scrapeTargetLabels = map[string]string{
	"job": monitoring.ScrapeJob, "type": "shoot", "pod": "gvisor-installation-pool-a-x7k2p", "node": testNode, "pool": "pool-a",
	"instance": "kube-apiserver:443",
}

// judgeShootMonitoring evaluates what the shoot Prometheus gets from pkg/monitoring on the real series of a node's
// metric server: the scrape keeps the series its metric relabeling allows (its own regex, applied here), the
// PrometheusRule's groups (every rule file, as the object carries them) are loaded, and every query of every panel
// of every dashboard is evaluated at each minute of 15 (the healthy scrape held, the broken-sandbox count as
// scraped before and during the hang). A panel whose query returns nothing on these series fails the test. The
// memory panel must show the loaded pod's real metric. (test/e2e runs the same queries on a real Prometheus over a
// load on a real kubelet node and writes the docs picture's data.)
func judgeShootMonitoring(t *testing.T, healthy, broken []sample, loaded *nodetest.Pod) {
	t.Helper()
	rules := writePrometheusRuleFile(t)
	keep := regexp.MustCompile(monitoring.ScrapeConfig("x").Spec.MetricRelabelConfigs[0].Regex)
	var input []string
	for _, s := range healthy {
		if !keep.MatchString(s.name) || s.name == "runsc_num_sandboxes_broken_metrics" {
			continue
		}
		input = append(input, inputSeries(s, strconv.FormatFloat(s.value, 'e', -1, 64)+"x15"))
	}
	before := one(t, healthy, "runsc_num_sandboxes_broken_metrics", nil)
	during := one(t, broken, "runsc_num_sandboxes_broken_metrics", nil)
	input = append(input, inputSeries(before, fmt.Sprintf("%gx4 %gx10", before.value, during.value)))

	dashboards, err := monitoring.Dashboards()
	if err != nil {
		t.Fatal(err)
	}
	minutes := make([]int, 16)
	for i := range minutes {
		minutes[i] = i
	}
	for file, raw := range dashboards {
		var d monitoring.Dashboard
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			t.Fatalf("dashboard %s: %v", file, err)
		}
		var exprs []string
		for _, p := range d.Panels {
			for _, target := range p.Targets {
				if !target.ReadsKubeStateMetrics() { // judged on kube-state-metrics' series: TestInstallationAlerts
					exprs = append(exprs, target.Expr)
				}
			}
		}
		results := queryAt(t, []string{rules}, input, exprs, minutes)
		for _, p := range d.Panels {
			for _, target := range p.Targets {
				if !target.ReadsKubeStateMetrics() && len(results[target.Expr]) == 0 {
					t.Errorf("dashboard %s, panel %q: its query %q returns nothing on the real series", file, p.Title, target.Expr)
				}
			}
		}
		checkMemoryPanel(t, results, loaded, healthy)
	}
}

// checkMemoryPanel: the memory panel's query gives the loaded pod the metric the sandbox really reported.
func checkMemoryPanel(t *testing.T, results map[string]map[int][]promqlResult, loaded *nodetest.Pod, healthy []sample) {
	t.Helper()
	want := one(t, healthy, "runsc_sandbox_memory_usage_bytes", map[string]string{"sandbox": loaded.ID}).value
	for _, r := range results["namespace_pod:gvisor_sandbox_memory_usage_bytes:sum"][10] {
		if strings.Contains(r.labels, `pod="`+loaded.Config.Metadata.Name+`"`) && r.value == want {
			return
		}
	}
	t.Errorf("the memory panel at 10m lacks the loaded pod %s with its metric %g: %v", loaded.Config.Metadata.Name, want,
		results["namespace_pod:gvisor_sandbox_memory_usage_bytes:sum"][10])
}

// writePrometheusRuleFile writes the PrometheusRule's groups as one rule file and has promtool check it.
func writePrometheusRuleFile(t *testing.T) string {
	t.Helper()
	rule, err := monitoring.PrometheusRule("shoot--p--s")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := yaml.Marshal(rule.Spec)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "prometheusrule.rules.yaml")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := execPromtool(t, "check", "rules", file); err != nil {
		t.Fatalf("promtool check rules on the PrometheusRule's groups: %v\n%s", err, out)
	}
	return file
}

// inputSeries is a promtool input series of s with the scrape's target labels.
func inputSeries(s sample, values string) string {
	l := map[string]string{}
	for k, v := range scrapeTargetLabels {
		l[k] = v
	}
	for k, v := range s.labels {
		l[k] = v
	}
	return fmt.Sprintf("      - series: '%s'\n        values: '%s'\n", promrules.Series(s.name, l), values)
}
