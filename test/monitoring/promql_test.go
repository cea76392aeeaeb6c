// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/promrules"
)

// promqlResult is one series of a PromQL query's result at one evaluation time.
type promqlResult struct {
	labels string // {k="v", ...} as promtool prints it
	value  float64
}

// queryAt evaluates every expr at every evalTime (minutes) on input (promtool input_series entries) with the rule
// files loaded, with Prometheus' own PromQL engine: promtool test rules, each query expected to give nothing, so
// that promtool prints what it really got. It returns the results by expr and evaluation time; an expr that gives
// nothing at a time has no entry there. Any promtool failure other than those printed results fails the test.
func queryAt(t testing.TB, ruleFiles []string, input []string, exprs []string, evalTimes []int) map[string]map[int][]promqlResult {
	t.Helper()
	var tests strings.Builder
	for _, e := range exprs {
		for _, m := range evalTimes {
			fmt.Fprintf(&tests, "      - expr: %s\n        eval_time: %dm\n        exp_samples: []\n", strconv.Quote(e), m)
		}
	}
	files := "rule_files: []\n"
	if len(ruleFiles) > 0 {
		files = "rule_files:\n" + yamlList(ruleFiles, 2)
	}
	text := files + "evaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n" +
		strings.Join(input, "") + "    promql_expr_test:\n" + tests.String()
	file := filepath.Join(t.TempDir(), "queries.test.yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promrules.Promtool(t), "test", "rules", file).CombinedOutput()
	results := parseGot(string(out))
	if err != nil && len(results) == 0 {
		t.Fatalf("promtool test rules (queries): %v\n%s\ntest file:\n%s", err, out, text)
	}
	return results
}

var (
	// gotExpr is promtool's line naming a failed expression test: expr: "<quoted>", time: 10m,
	gotExpr = regexp.MustCompile(`(?m)^\s*expr: (".*"), time: (\S+),\s*$`)
	// gotSample is one sample of promtool's "got:" line: {labels} value.
	gotSample = regexp.MustCompile(`(\{[^}]*\}) ([-+]?[0-9.]+(?:E[-+]?[0-9]+)?|NaN|[-+]Inf)`)
)

// parseGot reads promtool's failure report: per failed expression its "got:" samples.
func parseGot(out string) map[string]map[int][]promqlResult {
	results := map[string]map[int][]promqlResult{}
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		m := gotExpr.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		expr, err := strconv.Unquote(m[1])
		if err != nil {
			continue
		}
		at, err := model.ParseDuration(m[2]) // Prometheus' duration format: 0s, 10m, 1h5m
		if err != nil {
			continue
		}
		minute := int(time.Duration(at) / time.Minute)
		for _, next := range lines[i+1 : min(i+4, len(lines))] {
			if g, ok := strings.CutPrefix(strings.TrimSpace(next), "got: "); ok {
				for _, s := range gotSample.FindAllStringSubmatch(g, -1) {
					v, _ := strconv.ParseFloat(s[2], 64)
					if results[expr] == nil {
						results[expr] = map[int][]promqlResult{}
					}
					results[expr][minute] = append(results[expr][minute], promqlResult{labels: s[1], value: v})
				}
			}
		}
	}
	return results
}

func yamlList(items []string, indent int) string {
	var b strings.Builder
	for _, i := range items {
		fmt.Fprintf(&b, "%s- %s\n", strings.Repeat(" ", indent), i)
	}
	return b.String()
}
