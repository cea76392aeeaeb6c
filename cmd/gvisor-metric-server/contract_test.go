// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
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
// with its flags. The collector's --metric-server (what it serves) is exactly the metric-server flag the same
// rendering puts into runsc.toml (what runsc create records in each sandbox), so that it serves the pool's sandboxes;
// it listens on a Unix socket, and the front asks that socket and listens on a TCP port a scraper can reach.
func TestMetricServerContract(t *testing.T) {
	for golden, commands := range map[string][][]string{daemonSetGolden: containerCommands(t, daemonSetGolden), oscGolden: unitCommands(t, oscGolden)} {
		data, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		m := runscFlag.FindSubmatch(data)
		if m == nil {
			t.Fatalf("%s: no metric-server flag in its runsc.toml", golden)
		}
		var collector, front *options
		for _, args := range commands {
			o, err := parseFlags(args)
			if err != nil {
				t.Fatalf("%s: the rendered command %q does not parse: %v", golden, args, err)
			}
			if o.collectorSocket != "" {
				front = o
			} else {
				collector = o
			}
		}
		if collector == nil || front == nil || len(commands) != 2 {
			t.Fatalf("%s: commands %q, want one collector and one front", golden, commands)
		}
		if collector.address != string(m[1]) {
			t.Errorf("%s: --metric-server %q, but runsc.toml's metric-server is %q: the server would serve none of the pool's sandboxes", golden, collector.address, m[1])
		}
		// Per-pod series only where a NetworkPolicy keeps every pod but Gardener's VPN out (the DaemonSet mode's pod);
		// the OSC mode's server listens on the node's port, which every pod of the shoot reaches.
		if wantPerPod := golden == daemonSetGolden; collector.perPod != wantPerPod {
			t.Errorf("%s: --per-pod is %v, want %v", golden, collector.perPod, wantPerPod)
		}
		if !filepath.IsAbs(collector.listen) || !strings.HasSuffix(collector.root, "/run/containerd/runsc/k8s.io") || collector.socketMode&0o060 != 0o060 {
			t.Errorf("%s: collector --listen %q --root %q --socket-mode %o: want a Unix socket its front's group may use and the shim's runsc root of the k8s.io namespace",
				golden, collector.listen, collector.root, collector.socketMode)
		}
		if front.collectorSocket != collector.listen || !strings.HasPrefix(front.listen, ":") {
			t.Errorf("%s: front --collector-socket %q --listen %q: want the collector's socket %q and a TCP port", golden, front.collectorSocket, front.listen, collector.listen)
		}
	}
}

// containerCommands are the command lines of the containers running /gvisor-metric-server in a rendered
// installation (YAML list items after "- /gvisor-metric-server").
func containerCommands(t *testing.T, golden string) [][]string {
	t.Helper()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var commands [][]string
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
		commands = append(commands, args)
	}
	if len(commands) == 0 {
		t.Fatalf("%s: no container command /gvisor-metric-server", golden)
	}
	return commands
}

// unitCommands are the ExecStart lines of gvisor-metric-server's units in a mutated OperatingSystemConfig.
func unitCommands(t *testing.T, golden string) [][]string {
	t.Helper()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var commands [][]string
	for _, m := range regexp.MustCompile(`ExecStart=\S*/gvisor-metric-server ([^\\\n]*)`).FindAllSubmatch(data, -1) {
		commands = append(commands, strings.Fields(string(m[1])))
	}
	if len(commands) == 0 {
		t.Fatalf("%s: no ExecStart of gvisor-metric-server", golden)
	}
	return commands
}
