// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring

import (
	"strconv"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeScrapeConfig is the shoot Prometheus' scrape of the gVisor metrics in the OperatingSystemConfig delivery mode,
// where no installation pod runs: gardener-node-agent runs the node's metric server as the systemd unit
// gvisor-metric-server.service on the node's port NodeMetricsPort, and the scrape reaches it through the shoot API
// server's node proxy (/api/v1/nodes/<node>:9474/proxy/metrics), as Gardener's shoot Prometheus reaches the
// OpenTelemetry collector on every node (Gardener's CentralScrapeConfigs, "opentelemetry-collector-nodes";
// a test compares the two).
//
// It keeps the nodes Gardener labels for gVisor (containerruntime.worker.gardener.cloud/gvisor=true) and gives the
// series the labels the pod-role ScrapeConfig gives them (job, node, pool, type), so the rules and the dashboard read
// both modes alike. Unlike the OpenTelemetry scrape it maps no node labels onto the series (they would differ from
// the DaemonSet mode's and multiply the series' labels) and, like Gardener's scrapes of in-shoot components, it does
// not verify the API server's certificate (an extension has no stable name for the shoot's CA bundle secret).
func NodeScrapeConfig(namespace string) *monitoringv1alpha1.ScrapeConfig {
	token, insecure := shootAccess()
	spec := monitoringv1alpha1.ScrapeConfigSpec{
		HonorLabels:   ptr(false),
		Scheme:        ptr(monitoringv1.SchemeHTTPS),
		TLSConfig:     insecure,
		Authorization: token,
		KubernetesSDConfigs: []monitoringv1alpha1.KubernetesSDConfig{{
			Role:            monitoringv1alpha1.KubernetesRoleNode,
			APIServer:       ptr("https://kube-apiserver"),
			FollowRedirects: ptr(true),
			Namespaces:      &monitoringv1alpha1.NamespaceDiscovery{Names: []string{metav1.NamespaceSystem}},
			Authorization:   token,
			TLSConfig:       insecure,
		}},
		RelabelConfigs: []monitoringv1.RelabelConfig{
			{Action: "replace", Replacement: ptr(ScrapeJob), TargetLabel: "job"},
			{SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_node_name"}, TargetLabel: "instance"},
			{SourceLabels: []monitoringv1.LabelName{nodeLabel(GVisorNodeLabel)}, Action: "keep", Regex: "true"},
			{SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_node_name"}, TargetLabel: "node"},
			{SourceLabels: []monitoringv1.LabelName{nodeLabel(PoolNodeLabel)}, TargetLabel: "pool"},
			{TargetLabel: "__address__", Replacement: ptr("kube-apiserver:443")},
			{SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_node_name"}, Regex: `(.+)`, TargetLabel: "__metrics_path__",
				Replacement: ptr("/api/v1/nodes/${1}:" + strconv.Itoa(NodeMetricsPort) + "/proxy/metrics")},
			{TargetLabel: "type", Replacement: ptr("shoot")},
		},
		MetricRelabelConfigs: keepScrapedMetrics(),
	}
	return shootScrapeConfig(NodeScrapeConfigName, namespace, spec)
}

// nodeLabel is the service discovery's meta label of a node label: every character outside [a-zA-Z0-9_] becomes _.
func nodeLabel(name string) monitoringv1.LabelName {
	var b strings.Builder
	for _, r := range name {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return monitoringv1.LabelName("__meta_kubernetes_node_label_" + b.String())
}
