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
	// MetricServerContainer is the metric server's network-facing container in the installation pods (its front,
	// unprivileged: cmd/gvisor-metric-server/front).
	MetricServerContainer = "metric-server"
	// MetricCollectorContainer is the metric server's collector beside it: root, the runsc root, no network.
	MetricCollectorContainer = "metric-collector"
	// MetricCollectorSocket is the collector's Unix socket, the front's --collector-socket: in the pod's emptyDir in
	// the DaemonSet mode, in MetricCollectorDir on the node in the OperatingSystemConfig mode.
	MetricCollectorSocket = MetricCollectorDir + "/collector.sock"
	// MetricCollectorDir holds the collector's socket and nothing else.
	MetricCollectorDir = "/run/gvisor-metrics"
	// MetricFrontUser is the user and group the front runs as in both modes, apart from root and from the node's
	// own users; only it and root may enter MetricCollectorDir on a node (65532: distroless' "nonroot").
	MetricFrontUser = 65532
	// MetricServerPortName is its named container port (what a pod-role scrape config selects).
	MetricServerPortName = "metrics"
	// RunscRoot is the containerd shim's runsc root of the Kubernetes namespace k8s.io on a node: where the
	// sandboxes' state files and control sockets are, the metric server's --root.
	RunscRoot = "/run/containerd/runsc/k8s.io"
)
