// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package charts embeds the charts the extension renders into shoots, so the binaries carry them and
// rendering needs no files at run time.
package charts

import "embed"

// Internal holds internal/gvisor (the RuntimeClass chart) and internal/gvisor-installation (the per-pool
// DaemonSet chart). `all:` keeps files starting with _ or . (for example templates/_helpers.tpl).
//
//go:embed all:internal
var Internal embed.FS

// Paths of the charts inside Internal.
const (
	RuntimeClassChartPath = "internal/gvisor"
	InstallationChartPath = "internal/gvisor-installation"
	// MonitoringPath holds the shoot Prometheus' rule files (rules/*.rules.yaml) and the shoot Plutono's dashboards
	// (dashboards/*.json), which pkg/monitoring turns into the shoot namespace's monitoring objects.
	MonitoringPath = "internal/gvisor-monitoring"
)
