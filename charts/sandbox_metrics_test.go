// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"strings"
	"testing"
)

// TestSandboxMetricsValues: controller.sandboxMetrics and the installation chart's sandboxMetrics are booleans;
// helm refuses anything else naming the value (a "true" string would otherwise render --sandbox-metrics=true by
// accident of the template, a "yes" a controller that does not start). true reaches the controller's flag, and the
// installation chart then renders the metric server beside runsc's flag in runscToml (pkg/runscconfig makes it); a
// runscToml without that flag is refused, naming the fix, since no sandbox would register its metrics.
func TestSandboxMetricsValues(t *testing.T) {
	out, stderr, err := helm(t, "template", "x", "./gardener-extension-runtime-gvisor", "--set", "controller.sandboxMetrics=true")
	if err != nil || !strings.Contains(out, "- --sandbox-metrics=true") {
		t.Errorf("controller.sandboxMetrics=true: %v %s, want the controller flag --sandbox-metrics=true", err, stderr)
	}
	for _, bad := range []string{"yes", "true", "1"} {
		_, stderr, err := helm(t, "template", "x", "./gardener-extension-runtime-gvisor", "--set-string", "controller.sandboxMetrics="+bad)
		if err == nil || !strings.Contains(stderr, "sandboxMetrics") {
			t.Errorf("controller.sandboxMetrics=%q (a string): want helm to refuse it naming the value, got %v: %s", bad, err, stderr)
		}
	}
	installation := []string{"template", "x", "./internal/gvisor-installation", "--set", "workerPool=a,binaryPath=/var/bin/containerruntimes,image=example.com/i:v1"}
	withFlag := "runscToml=[runsc_config]\n  metric-server = \"/run/gvisor-metric-server.sock\"\n"
	out, stderr, err = helm(t, append(installation, "--set", "sandboxMetrics=true", "--set-string", withFlag)...)
	if err != nil || !strings.Contains(out, "- name: metric-server") || !strings.Contains(out, `metric-server = "/run/gvisor-metric-server.sock"`) {
		t.Errorf("installation sandboxMetrics=true: %v %s, want the metric-server container and runsc's flag:\n%s", err, stderr, out)
	}
	if _, stderr, err := helm(t, append(installation, "--set", "sandboxMetrics=true")...); err == nil || !strings.Contains(stderr, "runscToml") || !strings.Contains(stderr, "gvisor-render") {
		t.Errorf("installation sandboxMetrics=true without runsc's flag: want helm to refuse it naming runscToml and the fix, got %v: %s", err, stderr)
	}
	if _, stderr, err := helm(t, append(installation, "--set-string", "sandboxMetrics=true")...); err == nil || !strings.Contains(stderr, "sandboxMetrics") {
		t.Errorf("installation sandboxMetrics as a string: want helm to refuse it naming the value, got %v: %s", err, stderr)
	}
	out, _, err = helm(t, append(installation, "--set", "sandboxMetrics=true,mode=uninstall")...)
	if err != nil || strings.Contains(out, "metric-server") {
		t.Errorf("uninstall mode with sandboxMetrics: %v, want no metric server:\n%s", err, out)
	}
}
