// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"strings"
	"testing"

	gardenershoot "github.com/gardener/gardener/pkg/component/observability/monitoring/prometheus/shoot"
	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

const namespace = "shoot--garden--gvisor"

// TestShootObjectsGolden pins the three objects for a shoot namespace (testdata/shoot-objects.yaml; regenerate
// with UPDATE_SNAPSHOTS=1), and that building them twice gives the same bytes: the controller compares them with
// what is in the seed and writes only a difference.
func TestShootObjectsGolden(t *testing.T) {
	render := func() string {
		objs, err := monitoring.ShootObjects(namespace)
		testutil.Must(t, err)
		var b strings.Builder
		for _, o := range objs {
			raw, err := yaml.Marshal(o)
			testutil.Must(t, err)
			b.WriteString("---\n")
			b.Write(raw)
		}
		return b.String()
	}
	first := render()
	if second := render(); second != first {
		t.Fatalf("the monitoring objects differ between two builds for the same namespace:\n%s\n---- vs ----\n%s", first, second)
	}
	testutil.Golden(t, "testdata/shoot-objects.yaml", first)
}

// TestScrapeConfigFollowsGardener: our scrape is Gardener's own spec for a component inside the shoot (v1.149.3,
// prometheus/shoot.ClusterComponentScrapeConfigSpec), with only our two relabelings (the pod label, the pool)
// appended and the CRD's default action written out, so it reaches the pods the way Gardener's shoot Prometheus reaches every in-shoot target.
func TestScrapeConfigFollowsGardener(t *testing.T) {
	want := gardenershoot.ClusterComponentScrapeConfigSpec(monitoring.ScrapeJob, gardenershoot.KubernetesServiceDiscoveryConfig{
		Role: monitoringv1alpha1.KubernetesRolePod, PodNamePrefix: monitoring.InstallationPodPrefix,
		ContainerName: ".+", ContainerPortName: monitoring.MetricsPortName,
	}, monitoring.ScrapedMetrics...)
	for i := range want.RelabelConfigs { // the CRD's default, which ours spells out
		if want.RelabelConfigs[i].Action == "" {
			want.RelabelConfigs[i].Action = "replace"
		}
	}
	got := monitoring.ScrapeConfig(namespace)
	ours := got.Spec.RelabelConfigs[len(want.RelabelConfigs):]
	got.Spec.RelabelConfigs = got.Spec.RelabelConfigs[:len(want.RelabelConfigs)]
	if !equality.Semantic.DeepEqual(got.Spec, want) {
		a, _ := yaml.Marshal(got.Spec)
		b, _ := yaml.Marshal(want)
		t.Fatalf("the ScrapeConfig's spec is not Gardener's ClusterComponentScrapeConfigSpec:\nours:\n%s\nGardener's:\n%s", a, b)
	}
	if len(ours) != 2 || ours[0].Regex != "gvisor-installation" || ours[1].TargetLabel != "pool" {
		t.Fatalf("want exactly our two relabelings after Gardener's (keep app.kubernetes.io/name=gvisor-installation, pool), got %+v", ours)
	}
	if got.Labels["prometheus"] != "shoot" || got.Name != "shoot-runtime-gvisor" {
		t.Fatalf("the shoot Prometheus selects prometheus=shoot objects named shoot-<component>; got %s %v", got.Name, got.Labels)
	}
}

// TestRuleGroupsCarryEveryRuleFile: the PrometheusRule holds the groups of both rule files, the sandbox rules and
// the installation alerts.
func TestRuleGroupsCarryEveryRuleFile(t *testing.T) {
	groups, err := monitoring.RuleGroups()
	testutil.Must(t, err)
	var names []string
	alerts := map[string]bool{}
	for _, g := range groups {
		names = append(names, g.Name)
		for _, r := range g.Rules {
			if r.Alert != "" {
				alerts[r.Alert] = true
			}
		}
	}
	if got := strings.Join(names, ","); got != "gvisor-installation.rules,gvisor-installation.alerts,gvisor-sandboxes.rules,gvisor-sandboxes.alerts" {
		t.Fatalf("rule groups = %s", got)
	}
	for _, a := range []string{"GVisorNotReadyOnNodes", "GVisorSandboxProofFailed", "GVisorSandboxMetricsBroken"} {
		if !alerts[a] {
			t.Errorf("alert %s is not in the PrometheusRule", a)
		}
	}
}
