// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/promrules"
)

// seedRulesFile is the extension chart's seed rule file (its PrometheusRule carries it; charts/monitoring_test.go).
const seedRulesFile = "charts/gardener-extension-runtime-gvisor/monitoring/seed.rules.yaml"

// seedTargetLabels are the labels the seed Prometheus' PodMonitor "extensions" gives every series of the controller
// pod: job from its prometheus.io/name annotation, namespace and pod of the pod.
var seedTargetLabels = map[string]string{
	"job": "gardener-extension-runtime-gvisor", "namespace": "extension-runtime-gvisor-x8k2p", "pod": "gardener-extension-runtime-gvisor-5d9c7-abcde",
}

// judgeSeedRules runs promtool check rules and test rules on the seed rule file with the real controller's
// EveryNodeReady series as scraped (their labels, and their values for the first 5 minutes), after which the
// condition turns False (the health check's verdict when a node's sandbox proof keeps failing): the alert
// GVisorEveryNodeReadyFalse must not fire 9 minutes later and must fire, with exactly its labels and annotations,
// after its 10 minutes. SystemComponentsHealthy stays as scraped: its alert fires at 20 minutes exactly when the
// scrape had it False and stays quiet otherwise (the test scrapes once it is True).
func judgeSeedRules(t *testing.T, scraped []series) {
	t.Helper()
	promtool := promrules.Promtool(t)
	_, file, _, _ := runtime.Caller(0)
	rules := filepath.Join(filepath.Dir(file), "..", "..", "..", seedRulesFile)
	if out, err := exec.Command(promtool, "check", "rules", rules).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules %s: %v\n%s", seedRulesFile, err, out)
	}
	var input []string
	var shootNS, pool string
	for _, s := range scraped {
		var values string
		if s.labels["type"] == "EveryNodeReady" {
			turned := map[string]float64{"True": 0, "False": 1, "Progressing": 0, "Unknown": 0}[s.labels["status"]]
			values = fmt.Sprintf("%gx5 %gx20", s.value, turned)
			shootNS, pool = s.labels["shoot_namespace"], s.labels["pool"]
		} else {
			values = fmt.Sprintf("%gx25", s.value)
		}
		input = append(input, fmt.Sprintf("      - series: '%s'\n        values: '%s'\n", seriesName(s.labels), values))
	}
	if shootNS == "" {
		t.Fatalf("the scrape has no EveryNodeReady series: %v", scraped)
	}
	description := "The ContainerRuntime of worker pool " + pool + " in " + shootNS + " has had EveryNodeReady False for 10 minutes: " +
		"pods with runtimeClassName gvisor fail on some of its nodes. Its message names the nodes and why (kubectl -n " + shootNS +
		" get containerruntime -o jsonpath='{range .items[*]}{.spec.workerPool.name}{\" \"}{.status.conditions[?(@.type==\"EveryNodeReady\")].message}{\"\\n\"}{end}'); " +
		"the operator guide's Troubleshooting says what each reason means."
	test := "rule_files:\n  - " + rules + "\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n" + strings.Join(input, "") +
		"    alert_rule_test:\n" +
		"      - alertname: GVisorEveryNodeReadyFalse\n        eval_time: 14m\n        exp_alerts: []\n" +
		"      - alertname: GVisorEveryNodeReadyFalse\n        eval_time: 16m\n        exp_alerts:\n" +
		"          - exp_labels:\n" + promrules.YAMLMap(map[string]string{"shoot_namespace": shootNS, "pool": pool, "severity": "warning", "type": "seed", "visibility": "operator"}, 14) +
		"            exp_annotations:\n" + promrules.YAMLMap(map[string]string{
		"summary":     "gVisor is not ready on every node of worker pool " + pool + " in " + shootNS,
		"description": description,
	}, 14) +
		systemComponentsExpectation(scraped, shootNS, pool)
	path := filepath.Join(t.TempDir(), "seed.test.yaml")
	if err := os.WriteFile(path, []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "test", "rules", path).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules on the controller's real series: %v\n%s\ntest file:\n%s", err, out, test)
	}
	t.Logf("promtool test rules on the controller's real series: %s", strings.TrimSpace(string(out)))
}

// systemComponentsExpectation is the alert test of GVisorSystemComponentsUnhealthy at 20 minutes for the scraped
// SystemComponentsHealthy status, held for 25 minutes.
func systemComponentsExpectation(scraped []series, shootNS, pool string) string {
	head := "      - alertname: GVisorSystemComponentsUnhealthy\n        eval_time: 20m\n        exp_alerts:"
	for _, s := range scraped {
		if s.labels["type"] != "SystemComponentsHealthy" || s.labels["status"] != "False" || s.value != 1 {
			continue
		}
		return head + "\n          - exp_labels:\n" + promrules.YAMLMap(map[string]string{"shoot_namespace": shootNS, "pool": pool, "severity": "warning",
			"type": "seed", "visibility": "operator"}, 14) + "            exp_annotations:\n" + promrules.YAMLMap(map[string]string{
			"summary": "gVisor's objects are not healthy in the shoot of " + shootNS,
			"description": "The ContainerRuntime of worker pool " + pool + " in " + shootNS + " has had SystemComponentsHealthy False for 10 minutes: " +
				"gardener-resource-manager does not report the RuntimeClass or the pool's installation DaemonSet applied and healthy. The condition's " +
				"message has its reason (kubectl -n " + shootNS + " get managedresource extension-runtime-gvisor extension-runtime-gvisor-installation-" + pool + ").",
		}, 14)
	}
	return head + " []\n"
}

// seriesName is name{k="v",...} of labels (with __name__) plus seedTargetLabels, sorted (promrules.Series).
func seriesName(labels map[string]string) string {
	all := map[string]string{}
	for k, v := range seedTargetLabels {
		all[k] = v
	}
	for k, v := range labels {
		all[k] = v
	}
	name := all["__name__"]
	delete(all, "__name__")
	return promrules.Series(name, all)
}
