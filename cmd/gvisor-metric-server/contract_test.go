// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// goldens are the extension's renderings with sandbox metrics on, checked against the charts by the main module's
// tests (UPDATE_SNAPSHOTS=1 regenerates them): the DaemonSet mode's installation (container command and runsc.toml)
// and the OperatingSystemConfig mode's unit.
const (
	daemonSetGolden = "../../pkg/render/testdata/sandbox-metrics-pool.yaml"
	oscGolden       = "../../pkg/webhook/operatingsystemconfig/testdata/gvisor-pool-sandbox-metrics.yaml"
)

var runscFlag = regexp.MustCompile(`(?m)^\s*metric-server = "([^"]*)"\s*$`)

// TestMetricServerContract: the command lines the extension renders for this program, in both delivery modes, parse
// with its flags, and its --metric-server (what it serves) is exactly the metric-server flag the same rendering puts
// into runsc.toml (what runsc create records in each sandbox), so that it serves the pool's sandboxes; --listen is a
// TCP port a scraper can reach, not the runsc flag's path.
func TestMetricServerContract(t *testing.T) {
	for golden, args := range map[string][]string{daemonSetGolden: containerCommand(t, daemonSetGolden), oscGolden: unitCommand(t, oscGolden)} {
		data, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		m := runscFlag.FindSubmatch(data)
		if m == nil {
			t.Fatalf("%s: no metric-server flag in its runsc.toml", golden)
		}
		o, err := parseFlags(args)
		if err != nil {
			t.Fatalf("%s: the rendered command %q does not parse: %v", golden, args, err)
		}
		if o.address != string(m[1]) {
			t.Errorf("%s: --metric-server %q, but runsc.toml's metric-server is %q: the server would serve none of the pool's sandboxes", golden, o.address, m[1])
		}
		// Per-pod series only where a NetworkPolicy keeps every pod but Gardener's VPN out (the DaemonSet mode's pod);
		// the OSC mode's server listens on the node's port, which every pod of the shoot reaches.
		if wantPerPod := golden == daemonSetGolden; o.perPod != wantPerPod {
			t.Errorf("%s: --per-pod is %v, want %v", golden, o.perPod, wantPerPod)
		}
		if !strings.HasPrefix(o.listen, ":") || !strings.HasSuffix(o.root, "/run/containerd/runsc/k8s.io") {
			t.Errorf("%s: --listen %q --root %q: want a TCP port and the shim's runsc root of the k8s.io namespace", golden, o.listen, o.root)
		}
	}
}

// containerCommand is the metric-server container's command in a rendered installation (YAML list items after
// "- /gvisor-metric-server").
func containerCommand(t *testing.T, golden string) []string {
	t.Helper()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "- /gvisor-metric-server" {
			continue
		}
		var args []string
		for _, a := range lines[i+1:] {
			if strings.HasPrefix(strings.TrimSpace(a), "#") {
				continue // a comment between the arguments
			}
			arg, ok := strings.CutPrefix(strings.TrimSpace(a), "- --")
			if !ok {
				break
			}
			args = append(args, "--"+arg)
		}
		return args
	}
	t.Fatalf("%s: no container command /gvisor-metric-server", golden)
	return nil
}

// unitCommand is the ExecStart of the metric server unit in a mutated OperatingSystemConfig.
func unitCommand(t *testing.T, golden string) []string {
	t.Helper()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`ExecStart=\S*/gvisor-metric-server ([^\\\n]*)`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("%s: no ExecStart of gvisor-metric-server", golden)
	}
	return strings.Fields(string(m[1]))
}
