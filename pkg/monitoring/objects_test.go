// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	otelcomponent "github.com/gardener/gardener/pkg/component/extensions/operatingsystemconfig/original/components/opentelemetrycollector"
	gardenershoot "github.com/gardener/gardener/pkg/component/observability/monitoring/prometheus/shoot"
	"github.com/gardener/gardener/pkg/features"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	"k8s.io/apimachinery/pkg/api/equality"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

const namespace = "shoot--garden--gvisor"

// TestShootObjectsGolden pins the objects for a shoot namespace in each delivery mode (testdata/shoot-objects.yaml
// for the DaemonSet mode, testdata/shoot-objects-<mode>.yaml for the others; regenerate with UPDATE_SNAPSHOTS=1),
// and that building them twice gives the same bytes: the controller compares them with what is in the seed and
// writes only a difference.
func TestShootObjectsGolden(t *testing.T) {
	for _, mode := range delivery.Modes {
		t.Run(string(mode), func(t *testing.T) {
			render := func() string {
				raw, err := monitoring.ShootObjectsYAML(namespace, mode)
				testutil.Must(t, err)
				return string(raw)
			}
			first := render()
			if second := render(); second != first {
				t.Fatalf("the monitoring objects differ between two builds for the same namespace:\n%s\n---- vs ----\n%s", first, second)
			}
			golden := "testdata/shoot-objects.yaml"
			if mode != delivery.DaemonSet {
				golden = "testdata/shoot-objects-" + string(mode) + ".yaml"
			}
			testutil.Golden(t, golden, first)
		})
	}
}

// TestOtherModesObjects: what a mode leaves to remove is exactly what another mode deploys and it does not, so a
// switch back and forth leaves no scrape behind and removes none that is wanted.
func TestOtherModesObjects(t *testing.T) {
	names := func(objs []client.Object) map[string]bool {
		m := map[string]bool{}
		for _, o := range objs {
			m[o.GetObjectKind().GroupVersionKind().Kind+"/"+o.GetName()] = true
		}
		return m
	}
	all := map[string]bool{}
	for _, mode := range delivery.Modes {
		objs, err := monitoring.ShootObjects(namespace, mode)
		testutil.Must(t, err)
		for k := range names(objs) {
			all[k] = true
		}
	}
	for _, mode := range delivery.Modes {
		objs, err := monitoring.ShootObjects(namespace, mode)
		testutil.Must(t, err)
		own, other := names(objs), names(monitoring.OtherModesObjects(namespace, mode))
		for k := range all {
			if own[k] == other[k] {
				t.Errorf("mode %s: %s is deployed %v and removed %v; want exactly one of the two", mode, k, own[k], other[k])
			}
		}
	}
}

// TestNodeScrapeConfigFollowsGardener: the OperatingSystemConfig mode's scrape of the nodes is the one Gardener's
// shoot Prometheus has for the OpenTelemetry collector on every node (CentralScrapeConfigs,
// "opentelemetry-collector-nodes", built here by Gardener's code with its feature gate on), with our job, our port
// and our kept metrics, without the node-label map, with the API server's certificate unverified as in
// Gardener's scrapes of in-shoot components, and with our three relabelings (keep the gVisor nodes, node, pool).
func TestNodeScrapeConfigFollowsGardener(t *testing.T) {
	// gardenlet registers its feature gates at start; this test process is that part of gardenlet.
	testutil.Must(t, features.DefaultFeatureGate.Add(features.GetFeatures(features.OpenTelemetryCollector)))
	featuregatetesting.SetFeatureGateDuringTest(t, features.DefaultFeatureGate, features.OpenTelemetryCollector, true)
	var want *monitoringv1alpha1.ScrapeConfigSpec
	for _, sc := range gardenershoot.CentralScrapeConfigs(namespace, "ca-bundle", false) {
		if sc.Name == "opentelemetry-collector-nodes" {
			want = sc.Spec.DeepCopy()
		}
	}
	if want == nil {
		t.Fatal("Gardener's CentralScrapeConfigs has no opentelemetry-collector-nodes with the OpenTelemetryCollector feature gate on")
	}
	insecure := &monitoringv1.SafeTLSConfig{InsecureSkipVerify: new(true)}
	want.TLSConfig, want.KubernetesSDConfigs[0].TLSConfig = insecure, insecure
	var relabel []monitoringv1.RelabelConfig
	for _, r := range want.RelabelConfigs {
		switch {
		case r.Action == "labelmap":
			continue
		case r.TargetLabel == "job":
			r.Replacement = new(monitoring.ScrapeJob)
		case r.TargetLabel == "__metrics_path__":
			r.Replacement = new(strings.Replace(*r.Replacement, fmt.Sprintf(":%d/", otelcomponent.MetricsPort), fmt.Sprintf(":%d/", monitoring.NodeMetricsPort), 1))
		}
		if r.Action == "" {
			r.Action = "replace" // the CRD's default, which ours spells out
		}
		relabel = append(relabel, r)
	}
	want.RelabelConfigs = relabel
	want.MetricRelabelConfigs = monitoring.ScrapeConfig(namespace).Spec.MetricRelabelConfigs // the same series as the pods' scrape

	got := monitoring.NodeScrapeConfig(namespace)
	ours := slices.Clone(got.Spec.RelabelConfigs[2:5])
	got.Spec.RelabelConfigs = slices.Delete(got.Spec.RelabelConfigs, 2, 5)
	if !equality.Semantic.DeepEqual(got.Spec, *want) {
		a, _ := yaml.Marshal(got.Spec)
		b, _ := yaml.Marshal(want)
		t.Fatalf("the nodes' ScrapeConfig is not Gardener's opentelemetry-collector-nodes with our job, port and metrics:\nours:\n%s\nGardener's:\n%s", a, b)
	}
	gvisorLabel := "__meta_kubernetes_node_label_" + strings.NewReplacer(".", "_", "/", "_").Replace(fmt.Sprintf(extensionsv1alpha1.ContainerRuntimeNameWorkerLabel, "gvisor"))
	poolLabel := "__meta_kubernetes_node_label_" + strings.NewReplacer(".", "_", "/", "_").Replace(v1beta1constants.LabelWorkerPool)
	if len(ours) != 3 || string(ours[0].SourceLabels[0]) != gvisorLabel || ours[0].Action != "keep" || ours[0].Regex != "true" ||
		ours[1].TargetLabel != "node" || string(ours[2].SourceLabels[0]) != poolLabel || ours[2].TargetLabel != "pool" {
		t.Fatalf("want our three relabelings after job and instance (keep %s=true, node, pool from %s), got %+v", gvisorLabel, poolLabel, ours)
	}
	if monitoring.NodeMetricsPort != render.MetricServerPort {
		t.Fatalf("the nodes' scrape asks port %d, the metric-server unit listens on %d", monitoring.NodeMetricsPort, render.MetricServerPort)
	}
	if got.Labels["prometheus"] != "shoot" || got.Name != "shoot-runtime-gvisor-nodes" {
		t.Fatalf("the shoot Prometheus selects prometheus=shoot objects named shoot-<component>; got %s %v", got.Name, got.Labels)
	}
}

// TestScrapeConfigFollowsGardener: our scrape is Gardener's own spec for a component inside the shoot (Gardener's
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
