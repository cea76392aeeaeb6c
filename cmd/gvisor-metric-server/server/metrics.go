// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package server

import "gvisor.dev/gvisor/pkg/prometheus"

// Metrics the server computes itself; every name gets the exporter prefix (runsc_) like the sandboxes' own. The
// recording rules and the dashboard (charts/internal/gvisor-monitoring) read them by these names.
var (
	// sandboxMemory is the sandbox's total memory as the sentry accounts it (control.MemoryUsage.Total): what the
	// application inside uses, which the host cgroup of the pod shows only mixed with the sentry's own overhead.
	sandboxMemory = prometheus.Metric{
		Name: "sandbox_memory_usage_bytes",
		Type: prometheus.TypeGauge,
		Help: "Memory used by the sandbox's applications, as the gVisor sentry accounts it (all kinds).",
	}
	// sandboxMemoryKind splits sandboxMemory by the sentry's accounting kinds (anonymous, page_cache, tmpfs, ...).
	sandboxMemoryKind = prometheus.Metric{
		Name: "sandbox_memory_kind_bytes",
		Type: prometheus.TypeGauge,
		Help: "Memory used by the sandbox's applications by the sentry's accounting kind.",
	}
	// containerCPU is each container's CPU time inside the sandbox (runsc events' containerUsage).
	containerCPU = prometheus.Metric{
		Name: "container_cpu_usage_seconds_total",
		Type: prometheus.TypeCounter,
		Help: "CPU time used by the container's tasks inside the sandbox.",
	}
	// sandboxRunning is 1 for each sandbox the server serves.
	sandboxRunning = prometheus.Metric{
		Name: "sandbox_running",
		Type: prometheus.TypeGauge,
		Help: "1 for each running sandbox served by this metric server.",
	}
	// sandboxCreated is when the sandbox's root container was created.
	sandboxCreated = prometheus.Metric{
		Name: "sandbox_creation_time_seconds",
		Type: prometheus.TypeGauge,
		Help: "When the sandbox was created, as a unix timestamp in seconds.",
	}
	// sandboxMetadata is 1 for each served sandbox, labelled with what runsc recorded about it at creation
	// (Sandbox.MetricMetadata, metadataLabels): which gVisor release and platform a pod's sandbox runs on.
	sandboxMetadata = prometheus.Metric{
		Name: "sandbox_metadata",
		Type: prometheus.TypeGauge,
		Help: "1 for each served sandbox, labelled with the runsc version, platform, network, overlay, file system mode and CPU architecture it was created with.",
	}
	// sandboxesRunning and sandboxesBroken describe the node: how many sandboxes were served on this scrape, and
	// how many requested metrics but could not be exported (a hung or broken sandbox, or one failing verification).
	sandboxesRunning = prometheus.Metric{
		Name: "num_sandboxes_running",
		Type: prometheus.TypeGauge,
		Help: "Number of sandboxes served by this metric server on this scrape.",
	}
	sandboxesBroken = prometheus.Metric{
		Name: "num_sandboxes_broken_metrics",
		Type: prometheus.TypeGauge,
		Help: "Number of sandboxes that requested metrics but whose metrics could not be exported on this scrape.",
	}
	// nodeMemory and nodeSandboxes are what a node-only server (Server.PerPod false) says instead of the per-sandbox
	// series: the sum of sandboxMemory over the sandboxes that answered, and their count by sandboxMetadata's labels.
	nodeMemory = prometheus.Metric{
		Name: "node_sandbox_memory_usage_bytes",
		Type: prometheus.TypeGauge,
		Help: "Memory used by the applications of all sandboxes on the node that answered, as their sentries account it.",
	}
	nodeSandboxes = prometheus.Metric{
		Name: "node_sandboxes",
		Type: prometheus.TypeGauge,
		Help: "Number of sandboxes on the node that answered, by the runsc version, platform, network, overlay, file system mode and CPU architecture they were created with.",
	}
)

// metadataLabels are the keys of runsc's sandbox metadata (config.Config.MetricMetadata) that sandboxMetadata
// carries, each under the same name; a key the sandbox did not record is an empty label, so that every series has
// the same labels. (numcores, go and experiment are left out: they say nothing a dashboard groups by.)
var metadataLabels = []string{"version", "platform", "network", "overlay", "fsmode", "cpuarch"}

// metadata is the sandboxMetadata labels of a sandbox's recorded metadata.
func metadata(recorded map[string]string) map[string]string {
	out := make(map[string]string, len(metadataLabels))
	for _, k := range metadataLabels {
		out[k] = recorded[k]
	}
	return out
}

// memoryKinds returns the sentry's accounting kinds of u by label value.
func memoryKinds(u memoryUsage) map[string]uint64 {
	return map[string]uint64{
		"anonymous":  u.Anonymous,
		"page_cache": u.PageCache,
		"mapped":     u.Mapped,
		"tmpfs":      u.Tmpfs,
		"ramdiskfs":  u.Ramdiskfs,
		"system":     u.System,
		"unknown":    u.Unknown,
	}
}
