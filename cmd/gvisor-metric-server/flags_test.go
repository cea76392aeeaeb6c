// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"strings"
	"testing"
)

// TestFrontFlags: the front takes the collector's socket and a TCP address and nothing that reads sandboxes; each
// refusal names the flag.
func TestFrontFlags(t *testing.T) {
	o, err := parseFlags([]string{"--collector-socket=/run/gvisor-metrics/collector.sock", "--listen=:9474"})
	if err != nil || o.collectorSocket != "/run/gvisor-metrics/collector.sock" || o.listen != ":9474" {
		t.Fatalf("a front's command line: %+v, %v", o, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--collector-socket=collector.sock", "--listen=:9474"}, "--collector-socket"},
		{[]string{"--collector-socket=/run/c.sock"}, "--listen"},
		{[]string{"--collector-socket=/run/c.sock", "--listen=/run/front.sock"}, "--listen"},
		{[]string{"--collector-socket=/run/c.sock", "--listen=:9474", "--root=/run/containerd/runsc/k8s.io", "--per-pod"}, "--per-pod, --root"},
		{[]string{"--collector-socket=/run/c.sock", "--listen=:9474", "--metric-server=/run/x"}, "--metric-server"},
	} {
		if _, err := parseFlags(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error naming %s", c.args, err, c.want)
		}
	}
}

// TestCollectorSocketMode: the collector's socket permission is octal and nothing but a permission.
func TestCollectorSocketMode(t *testing.T) {
	o, err := parseFlags([]string{"--metric-server=%RUNTIME_ROOT%/metrics.sock", "--listen=/run/gvisor-metrics/collector.sock", "--socket-mode=0666"})
	if err != nil || o.socketMode != 0o666 {
		t.Fatalf("%+v, %v", o, err)
	}
	if o, err = parseFlags([]string{"--metric-server=:9474"}); err != nil || o.socketMode != 0o600 {
		t.Errorf("default: %+v, %v; want 0600", o, err)
	}
	for _, m := range []string{"666x", "01777", "rw"} {
		if _, err := parseFlags([]string{"--metric-server=:9474", "--socket-mode=" + m}); err == nil || !strings.Contains(err.Error(), "--socket-mode") {
			t.Errorf("--socket-mode=%s: %v, want an error naming it", m, err)
		}
	}
}
