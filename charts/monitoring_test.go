// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"sigs.k8s.io/yaml"
)

// seedRulesFile is the seed-side rule file the chart's PrometheusRule carries (promtool tests the file itself).
const seedRulesFile = "gardener-extension-runtime-gvisor/monitoring/seed.rules.yaml"

// TestSeedMonitoring: by default the pod carries the annotations Gardener's seed Prometheus scrapes extension pods
// by (its PodMonitor "extensions": prometheus.io/scrape, port, name) and no PrometheusRule is rendered (the CRD may be
// absent); with monitoring.seed.alerts the PrometheusRule labelled prometheus=seed carries exactly the groups of
// monitoring/seed.rules.yaml.
func TestSeedMonitoring(t *testing.T) {
	r := decode(t, template(t))
	d, _ := r.deployment(t)
	want := map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "8080", "prometheus.io/name": "gardener-extension-runtime-gvisor"}
	for k, v := range want {
		if got := d.Spec.Template.Annotations[k]; got != v {
			t.Errorf("pod annotation %s = %q, want %q", k, got, v)
		}
	}
	if len(r.promRules) != 0 {
		t.Fatalf("a PrometheusRule by default: the seed may lack the CRD; want it only with monitoring.seed.alerts")
	}

	r = decode(t, template(t, "--set", "monitoring.seed.alerts=true"))
	if len(r.promRules) != 1 {
		t.Fatalf("want one PrometheusRule with monitoring.seed.alerts=true, got %d", len(r.promRules))
	}
	rule := r.promRules[0]
	if rule.Name != "seed-gardener-extension-runtime-gvisor" || rule.Namespace != releaseNS || rule.Labels["prometheus"] != "seed" {
		t.Errorf("PrometheusRule %s/%s labels %v: want seed-gardener-extension-runtime-gvisor in the release namespace, prometheus=seed", rule.Namespace, rule.Name, rule.Labels)
	}
	raw, err := os.ReadFile(seedRulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var file monitoringv1.PrometheusRuleSpec
	if err := yaml.UnmarshalStrict(raw, &file); err != nil {
		t.Fatalf("%s: %v", seedRulesFile, err)
	}
	if diff := cmp.Diff(file, rule.Spec); diff != "" {
		t.Errorf("the PrometheusRule's spec is not %s (-file +rendered):\n%s", seedRulesFile, diff)
	}
}
