// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring

const (
	// ShootPrometheus is the value of the prometheus label that the shoot Prometheus selects ScrapeConfigs and
	// PrometheusRules by (Gardener: pkg/component/observability/monitoring/prometheus/shoot.Label).
	ShootPrometheus = "shoot"
	// ObjectName is the ScrapeConfig's and the PrometheusRule's name: "<prometheus>-<component>", as Gardener's
	// monitoringutils.ConfigObjectMeta names them.
	ObjectName = ShootPrometheus + "-runtime-gvisor"
	// DashboardConfigMapName is the shoot Plutono's dashboard ConfigMap ("extension-<name>-...", the convention of
	// Gardener's extension monitoring guide).
	DashboardConfigMapName = "extension-runtime-gvisor-dashboards"
	// DashboardLabel selects the ConfigMaps the shoot Plutono loads dashboards from.
	DashboardLabel = "dashboard.monitoring.gardener.cloud/shoot"
	// ScrapeJob is the job label of the scraped gVisor series.
	ScrapeJob = "gvisor-metrics"
	// MetricsPortName is the named container port of the installation DaemonSet's pods that serves the node's gVisor
	// metrics (the node's gvisor-metric-server).
	MetricsPortName = "metrics"
	// InstallationPodPrefix starts the name of every installation pod (DaemonSet gvisor-installation-<pool>).
	InstallationPodPrefix = "gvisor-installation-"
	// NodeScrapeConfigName is the OperatingSystemConfig mode's ScrapeConfig (NodeScrapeConfig): "<prometheus>-<component>-nodes".
	NodeScrapeConfigName = ObjectName + "-nodes"
	// NodeMetricsPort is the node port the OperatingSystemConfig mode's metric-server unit listens on
	// (render.MetricServerPort; a test keeps the two equal).
	NodeMetricsPort = 9474
	// GVisorNodeLabel is the label Gardener puts on every node of a worker pool with gVisor among its container
	// runtimes (containerruntime.worker.gardener.cloud/<type>: "true").
	GVisorNodeLabel = "containerruntime.worker.gardener.cloud/gvisor"
	// PoolNodeLabel is Gardener's label naming a node's worker pool.
	PoolNodeLabel = "worker.gardener.cloud/pool"
	// accessSecretName is the token secret the shoot Prometheus uses for the shoot's API server
	// (Gardener: prometheus/shoot.AccessSecretName).
	accessSecretName = "shoot-access-prometheus-shoot"
)

// ScrapedMetrics are the metric server's series the scrape keeps: what the rules and the dashboard use, per sandbox
// and per node (the node's sums are all the OperatingSystemConfig mode's server says). runsc's own per-sandbox metrics (runsc_fs_*, runsc_netstack_*, ...) are dropped: dozens of series per
// pod that no rule reads.
var ScrapedMetrics = []string{
	"runsc_container_cpu_usage_seconds_total",
	"runsc_node_sandbox_memory_usage_bytes",
	"runsc_node_sandboxes",
	"runsc_num_sandboxes_broken_metrics",
	"runsc_num_sandboxes_running",
	"runsc_sandbox_creation_time_seconds",
	"runsc_sandbox_memory_kind_bytes",
	"runsc_sandbox_memory_usage_bytes",
	"runsc_sandbox_metadata",
	"runsc_sandbox_running",
}
