// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/promrules"
)

// rulesFile is the rule file the shoot Prometheus' PrometheusRule carries (repository path).
const rulesFile = "charts/internal/gvisor-monitoring/rules/gvisor-sandboxes.rules.yaml"

// testNode is the node label the shoot Prometheus' scrape of the metric server adds.
const testNode = "node-1"

// execPromtool runs promtool with args.
func execPromtool(t testing.TB, args ...string) ([]byte, error) {
	t.Helper()
	return exec.Command(promrules.Promtool(t), args...).CombinedOutput()
}

// ruleTest is one promtool rule unit test, written from real scrapes.
type ruleTest struct {
	rules  string   // the rule file (repository path); empty: rulesFile
	series []string // input_series entries, YAML
	exprs  []string // promql_expr_test entries
	alerts []string // alert_rule_test entries
}

// addSeries adds s as an input series with the node label, its values the given ones (promtool's expanding
// notation, e.g. "0x5 1x20").
func (r *ruleTest) addSeries(s sample, values string) {
	r.series = append(r.series, fmt.Sprintf("      - series: '%s'\n        values: '%s'\n", promrules.Series(s.name, withNode(s.labels)), values))
}

// addRawSeries adds an input series with exactly these labels.
func (r *ruleTest) addRawSeries(name string, labels map[string]string, values string) {
	r.series = append(r.series, fmt.Sprintf("      - series: '%s'\n        values: '%s'\n", promrules.Series(name, labels), values))
}

// expectSample expects expr at evalTime to give exactly one sample with labels and value.
func (r *ruleTest) expectSample(expr, evalTime string, labels string, value float64) {
	r.exprs = append(r.exprs, fmt.Sprintf("      - expr: '%s'\n        eval_time: %s\n        exp_samples:\n          - labels: '%s'\n            value: %s\n",
		expr, evalTime, labels, strconv.FormatFloat(value, 'e', -1, 64)))
}

// expectAlert expects alert at evalTime to fire with exactly the given labels and annotations (nil: not firing).
func (r *ruleTest) expectAlert(alert, evalTime string, labels, annotations map[string]string) {
	entry := fmt.Sprintf("      - alertname: %s\n        eval_time: %s\n        exp_alerts:", alert, evalTime)
	if labels == nil {
		r.alerts = append(r.alerts, entry+" []\n")
		return
	}
	entry += "\n          - exp_labels:\n" + promrules.YAMLMap(labels, 14) + "            exp_annotations:\n" + promrules.YAMLMap(annotations, 14)
	r.alerts = append(r.alerts, entry)
}

// expAlert is one expected firing alert.
type expAlert struct {
	labels, annotations map[string]string
}

// expectAlerts expects alert at evalTime to fire exactly these (in promtool's order: by labels).
func (r *ruleTest) expectAlerts(alert, evalTime string, alerts ...expAlert) {
	entry := fmt.Sprintf("      - alertname: %s\n        eval_time: %s\n        exp_alerts:\n", alert, evalTime)
	for _, a := range alerts {
		entry += "          - exp_labels:\n" + promrules.YAMLMap(a.labels, 14) + "            exp_annotations:\n" + promrules.YAMLMap(a.annotations, 14)
	}
	r.alerts = append(r.alerts, entry)
}

// run writes the test file and runs promtool check rules and promtool test rules on the repository's rule file.
func (r *ruleTest) run(t testing.TB) {
	t.Helper()
	file := rulesFile
	if r.rules != "" {
		file = r.rules
	}
	rules := filepath.Join(repoRoot(t), file)
	pt := promrules.Promtool(t)
	if out, err := exec.Command(pt, "check", "rules", rules).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules %s: %v\n%s", file, err, out)
	}
	text := "rule_files:\n  - " + rules + "\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n" +
		strings.Join(r.series, "") + "    promql_expr_test:\n" + strings.Join(r.exprs, "") + "    alert_rule_test:\n" + strings.Join(r.alerts, "")
	testFile := filepath.Join(t.TempDir(), "rules.test.yaml")
	if err := os.WriteFile(testFile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pt, "test", "rules", testFile).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules (%s): %v\n%s\ntest file:\n%s", file, err, out, text)
	}
	t.Logf("promtool test rules (%s): %s", file, strings.TrimSpace(string(out)))
}

func withNode(l map[string]string) map[string]string {
	m := map[string]string{"node": testNode}
	for k, v := range l {
		m[k] = v
	}
	return m
}
