// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package monitoring_test proves the node side of gVisor's monitoring on real nodes (test/node: real containerd,
// real runsc, real pods over CRI): with runsc's metric-server flag in runsc.toml, as the installer writes it, every
// sandbox registers its metrics, and the real gvisor-metric-server (cmd/gvisor-metric-server, built from its own
// module) serves them together with each sandbox's memory and CPU, which are checked against what the sandbox
// really uses on the host (its pod cgroup). On the same series it judges what pkg/monitoring gives the shoot
// Prometheus and Plutono: the rules and alerts in promtool, and every dashboard panel's query (dashboard_test.go);
// the installation alerts' timing runs on series in kube-state-metrics' format (installation_alerts_test.go; test/e2e
// runs them on a real kube-state-metrics' series of a real failure).
package monitoring_test
