// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package runscconfig

import (
	"maps"
	"slices"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// TestFlags: defaults are filled in, the extension's metric-server flag wins over a pool's, and the pool's map is not
// changed.
func TestFlags(t *testing.T) {
	pool := map[string]string{"debug": "true", "metric-server": "/elsewhere"}
	before := maps.Clone(pool)
	got := Flags(pool, Options{SandboxMetrics: true})
	want := map[string]string{"debug": "true", "debug-log": v1alpha1.DefaultDebugLog, "metric-server": MetricServerAddress}
	if !maps.Equal(got, want) || !maps.Equal(pool, before) {
		t.Errorf("Flags = %v (pool now %v), want %v and the pool unchanged", got, pool, want)
	}
	if got := Flags(nil, Options{}); len(got) != 0 {
		t.Errorf("Flags(nil) = %v, want none", got)
	}
	if got := Flags(nil, Options{SandboxMetrics: true}); !maps.Equal(got, map[string]string{"metric-server": MetricServerAddress}) {
		t.Errorf("Flags(nil, metrics) = %v", got)
	}
	gpu := map[string]string{"nvproxy": "true", "nvproxy-allowed-driver-capabilities": "compute,utility,graphics"}
	if got := Flags(gpu, Options{}); !maps.Equal(got, map[string]string{"nvproxy-allowed-driver-capabilities": "compute,utility,graphics"}) || gpu["nvproxy"] != "true" {
		t.Errorf("Flags(%v) = %v, want nvproxy dropped (each node decides it) and the pool unchanged", gpu, got)
	}
	if got := Flags(map[string]string{"nvproxy": "false"}, Options{}); got != nil {
		t.Errorf("Flags(nvproxy only) = %v, want none", got)
	}
}

// TestTableAndForRelease: the table is sorted and byte-stable, the installer's checks accept it, and the installed
// form names the release's runsc and keeps the table as it is.
func TestTableAndForRelease(t *testing.T) {
	table := Table(map[string]string{"platform": "systrap", "net-raw": "true"})
	if want := "[runsc_config]\n  net-raw = \"true\"\n  platform = \"systrap\"\n"; string(table) != want {
		t.Fatalf("Table = %q, want %q", table, want)
	}
	if string(Table(nil)) != string(Empty) {
		t.Errorf("Table(nil) = %q, want %q", Table(nil), Empty)
	}
	if flags, err := Validate("t", table); err != nil || !slices.Equal(flags, []string{"net-raw", "platform"}) {
		t.Errorf("Validate(Table) = %v, %v", flags, err)
	}
	installed := ForRelease("/var/bin/containerruntimes", "v1-abc", table)
	want := "# Written by gvisor-installer for release v1-abc: sandboxes started with it keep using its runsc.\n" +
		"binary_name = \"/var/bin/containerruntimes/gvisor/releases/v1-abc/runsc\"\n\n" + string(table)
	if string(installed) != want {
		t.Errorf("ForRelease = %q, want %q", installed, want)
	}
	if _, err := ValidateInstalled("t", installed); err != nil {
		t.Errorf("ValidateInstalled(ForRelease) = %v", err)
	}
	if _, err := Validate("t", installed); err == nil {
		t.Error("Validate accepts binary_name, which only the installer writes")
	}
}

// TestPaths: the release layout's places of runsc.toml.
func TestPaths(t *testing.T) {
	bin := "/var/bin/containerruntimes"
	for got, want := range map[string]string{
		ReleasePath(bin, "v1-abc"): bin + "/gvisor/releases/v1-abc/runsc.toml",
		RunscPath(bin, "v1-abc"):   bin + "/gvisor/releases/v1-abc/runsc",
		LinkTarget(bin):            bin + "/gvisor/current/runsc.toml",
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// TestForNode: a GPU node's table is the pool's with nvproxy on, in Table's byte form; other nodes keep the pool's
// bytes, and never nvproxy.
func TestForNode(t *testing.T) {
	pool := Table(map[string]string{"platform": "systrap", "net-raw": "true"})
	if got, err := ForNode(pool, NodeOptions{}); err != nil || string(got) != string(pool) {
		t.Errorf("ForNode(no additions) = %q, %v, want the pool's table", got, err)
	}
	got, err := ForNode(pool, NodeOptions{NVProxy: true})
	want := Table(map[string]string{"platform": "systrap", "net-raw": "true", "nvproxy": "true"})
	if err != nil || string(got) != string(want) {
		t.Errorf("ForNode(nvproxy) = %q, %v, want %q", got, err, want)
	}
	if got, err := ForNode(Empty, NodeOptions{NVProxy: true}); err != nil || string(got) != "[runsc_config]\n  nvproxy = \"true\"\n" {
		t.Errorf("ForNode(empty, nvproxy) = %q, %v", got, err)
	}
	if got, err := ForNode([]byte("[runsc_config]\n  nvproxy = \"true\"\n"), NodeOptions{}); err != nil || string(got) != string(Empty) {
		t.Errorf("ForNode(a table with nvproxy, no GPU) = %q, %v, want nvproxy off", got, err)
	}
}
