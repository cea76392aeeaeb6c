// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package monitoring builds the objects that plug a shoot's gVisor into Gardener's monitoring stack in the shoot's
// namespace on the seed (docs/extensions/logging-and-monitoring.md of Gardener): a ScrapeConfig and a
// PrometheusRule labelled prometheus=shoot for the shoot Prometheus, and a ConfigMap labelled
// dashboard.monitoring.gardener.cloud/shoot=true for the shoot Plutono. The rule files and dashboards are the
// embedded charts/internal/gvisor-monitoring; the objects are the same bytes for the same namespace.
package monitoring
