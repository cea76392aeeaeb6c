// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

// Sandbox metrics (docs/monitoring.md): the installation chart's sandboxMetrics value. The chart owns the values
// below (its helper gvisor-installation.metricServerPort); these constants are for the code that must agree with it
// without a rendered chart at hand (the OperatingSystemConfig mode's unit, tests), and a test holds them equal. The
// metric server's --metric-server is runsc's flag value, runscconfig.MetricServerAddress.
const (
	// MetricServerPort is the TCP port the metric server listens on: the pod's named port "metrics" in the
	// DaemonSet mode, the node's port in the OperatingSystemConfig mode.
	MetricServerPort = 9474
	// MetricServerContainer is the metric server's container in the installation pods.
	MetricServerContainer = "metric-server"
	// MetricServerPortName is its named container port (what a pod-role scrape config selects).
	MetricServerPortName = "metrics"
	// RunscRoot is the containerd shim's runsc root of the Kubernetes namespace k8s.io on a node: where the
	// sandboxes' state files and control sockets are, the metric server's --root.
	RunscRoot = "/run/containerd/runsc/k8s.io"
)
