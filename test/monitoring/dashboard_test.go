// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// PictureDataEnv names the file TestSandboxMemoryMetric writes the dashboard's query results to (JSON), from
// which hack/dashboard-picture draws docs/images/gvisor-dashboard.png (make dashboard-picture).
const PictureDataEnv = "GVISOR_DASHBOARD_DATA"

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
// memory panel must show the loaded pod's real metric. With PictureDataEnv set, the results are written for the
// docs picture.
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
	var picture []pictureDashboard
	for file, raw := range dashboards {
		var d monitoring.Dashboard
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			t.Fatalf("dashboard %s: %v", file, err)
		}
		var exprs []string
		for _, p := range d.Panels {
			for _, target := range p.Targets {
				exprs = append(exprs, target.Expr)
			}
		}
		results := queryAt(t, []string{rules}, input, exprs, minutes)
		for _, p := range d.Panels {
			for _, target := range p.Targets {
				if len(results[target.Expr]) == 0 {
					t.Errorf("dashboard %s, panel %q: its query %q returns nothing on the real series", file, p.Title, target.Expr)
				}
			}
		}
		checkMemoryPanel(t, results, loaded, healthy)
		picture = append(picture, toPicture(d, results, minutes))
	}
	if out := os.Getenv(PictureDataEnv); out != "" {
		writePictureData(t, out, picture)
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
	return fmt.Sprintf("      - series: '%s'\n        values: '%s'\n", seriesName(s.name, l), values)
}

// pictureDashboard is what hack/dashboard-picture draws: per panel its title, unit and series over the minutes.
type pictureDashboard struct {
	Title  string         `json:"title"`
	Panels []picturePanel `json:"panels"`
}

type picturePanel struct {
	Title   string          `json:"title"`
	Expr    string          `json:"expr"`
	Unit    string          `json:"unit"`
	Minutes []int           `json:"minutes"`
	Series  []pictureSeries `json:"series"`
}

type pictureSeries struct {
	Legend string    `json:"legend"`
	Values []float64 `json:"values"` // per minute; NaN where the query gave nothing
}

func toPicture(d monitoring.Dashboard, results map[string]map[int][]promqlResult, minutes []int) pictureDashboard {
	out := pictureDashboard{Title: d.Title}
	for _, p := range d.Panels {
		for _, target := range p.Targets {
			pp := picturePanel{Title: p.Title, Expr: target.Expr, Unit: p.FieldConfig.Defaults.Unit, Minutes: minutes}
			byLegend := map[string][]float64{}
			for i, m := range minutes {
				for _, r := range results[target.Expr][m] {
					legend := legendOf(target.LegendFormat, r.labels)
					if byLegend[legend] == nil {
						byLegend[legend] = nanSlice(len(minutes))
					}
					byLegend[legend][i] = r.value
				}
			}
			legends := make([]string, 0, len(byLegend))
			for l := range byLegend {
				legends = append(legends, l)
			}
			sort.Strings(legends)
			for _, l := range legends {
				pp.Series = append(pp.Series, pictureSeries{Legend: l, Values: byLegend[l]})
			}
			out.Panels = append(out.Panels, pp)
		}
	}
	return out
}

var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// legendOf fills a Plutono legend format ({{label}}) from promtool's label set.
func legendOf(format, labels string) string {
	l := map[string]string{}
	for _, m := range labelPair.FindAllStringSubmatch(labels, -1) {
		l[m[1]] = m[2]
	}
	return regexp.MustCompile(`\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}`).ReplaceAllStringFunc(format, func(s string) string {
		return l[strings.Trim(s, "{} ")]
	})
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = -1 // no value: JSON has no NaN; hack/dashboard-picture skips negative values
	}
	return s
}

func writePictureData(t *testing.T, out string, d []pictureDashboard) {
	t.Helper()
	raw, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, append(raw, '\n'), 0o644); err != nil {
		t.Fatalf("writing the dashboard's query results to %s (%s): %v", out, PictureDataEnv, err)
	}
	t.Logf("wrote the dashboard's query results on the real series to %s", out)
}
