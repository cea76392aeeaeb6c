// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// TestSandboxMetricsSnapshot: --sandbox-metrics renders runsc's metric-server flag into the pool's runsc.toml and
// the metric server container, with its named port, into the installation pods; without it neither.
func TestSandboxMetricsSnapshot(t *testing.T) {
	out := snapshot(t, example, "example-sandbox-metrics.yaml", "--sandbox-metrics")
	flag := `metric-server = "` + runscconfig.MetricServerAddress + `"`
	for _, s := range []string{flag, "- name: " + render.MetricServerContainer, "- --metric-server=" + runscconfig.MetricServerAddress, "name: " + render.MetricServerPortName} {
		if !strings.Contains(out, s) {
			t.Errorf("output with --sandbox-metrics lacks %q", s)
		}
	}
	code, off, stderr := runCmd(t, "v0.1.0-dev", "-f", example)
	if code != 0 || strings.Contains(off, "metric-server") {
		t.Errorf("without --sandbox-metrics (exit %d, %s) the output mentions the metric server", code, stderr)
	}
}
