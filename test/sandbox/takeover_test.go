// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	cc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// oldExtensionStates are the node states the field's extension left (see their README): config.toml as its
// install script edited it; it also wrote runsc.toml (oldRunscConfig) and put its binaries into the bin dir.
const oldExtensionStates = "../../pkg/installer/containerdconfig/testdata/oldextension"

const oldRunscConfig = "[runsc_config]\n  net-raw = \"true\"\n"

// noRunc is containerd 1.x's complaint when a config's CRI runtimes map lacks runc (the map replaced the default).
const noRunc = "no corresponding runtime configured in `containerd.runtimes` for `containerd` `default_runtime_name"

// oldExtensionFacts says, for each state (README), what containerd 1.x does with it before the takeover (the log
// line that shows it, or "" when it runs and serves CRI), and whether the state registers runsc exactly as the
// installer does (then the takeover replaces the binaries and runsc.toml and restarts nothing).
var oldExtensionFacts = map[string]struct {
	on1x       string
	registered bool
}{
	"early-default-1.6.toml":          {on1x: `invalid plugin key URI "cri"`},
	"early-default-1.7.toml":          {on1x: `invalid plugin key URI "cri"`},
	"latest-debian-1.6-packaged.toml": {on1x: noRunc},
	"latest-gardener-v2.toml":         {registered: true},
	"latest-gardener-v3.toml":         {},
	"latest-v1.toml":                  {on1x: noRunc},
}

// TestTakeoverFromOldExtension puts every state of the field's extension onto a node of every supported release that reads
// its config version, with the old runsc.toml and old binaries (stand-ins that cannot run) in the bin dir, and
// containerd on it as the field has it: running (and starting no runsc pod), or, on containerd 1.x, exited or
// without CRI where the old script broke the node (checked from containerd's log). The installer takes over
// (one restart; none where the old registration is already ours), and a runsc pod then runs on gVisor with the
// installed binaries and runsc.toml in effect: its sandbox carries --net-raw=true (which the version-1 state
// never passed on).
//
// Each state gets the test machine's two adjustments (nodetest.AdjustForTestMachine: the imported pause image,
// restrict_oom_score_adj); these nodes have no pod network configured, so the pods use the host network.
func TestTakeoverFromOldExtension(t *testing.T) {
	s := newSuite(t)
	files, err := filepath.Glob(filepath.Join(oldExtensionStates, "*.toml"))
	if err != nil || len(files) != len(oldExtensionFacts) {
		t.Fatalf("%d states of the field's extension in %s (%v), %d in oldExtensionFacts: keep them in step", len(files), oldExtensionStates, err, len(oldExtensionFacts))
	}
	for _, file := range files {
		name := filepath.Base(file)
		facts, ok := oldExtensionFacts[name]
		if !ok {
			t.Fatalf("%s is not in oldExtensionFacts", name)
		}
		state, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := cc.Parse(nodecontract.ContainerdConfigPath, state)
		if err != nil {
			t.Fatal(err)
		}
		adjusted, err := nodetest.AdjustForTestMachine(state)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		t.Run(name, func(t *testing.T) {
			checked := 0
			s.releases(t, func(c installertest.Containerd) bool { return c.Accepts(doc.Version) }, func(t *testing.T, c installertest.Containerd) {
				checked++
				broken := c.Major == 1 && facts.on1x != ""
				n := s.newNode(t, c, nodetest.Config{ContainerdConfig: adjusted, ExpectDown: broken}, oldRunscConfig)
				if broken && !strings.Contains(n.LogTail(200), facts.on1x) {
					t.Errorf("%s should show why it serves no CRI on this state (%q):\n%s", c, facts.on1x, n.LogTail(30))
				}
				writeHost(t, n, runscconfig.NodePath, []byte(oldRunscConfig))
				writeHost(t, n, filepath.Join(n.BinDir(), "runsc"), installertest.StubELF(nativeMachine(), "old runsc"))
				writeHost(t, n, filepath.Join(n.BinDir(), nodetest.ShimName), installertest.StubELF(nativeMachine(), "old shim"))

				if !broken { // the old node runs no gVisor pod: runsc is not in effect, or its binaries cannot run
					if pod, err := n.RunPod(context.Background(), nodetest.PodSpec{Handler: "runsc", HostNetwork: true}); err == nil {
						t.Fatalf("a runsc pod (%s) started on the field's extension's node before the takeover", pod.ID)
					} else {
						t.Logf("before the takeover: %v", strings.SplitN(err.Error(), "\n", 2)[0])
					}
				}

				restarts := 1
				if facts.registered {
					restarts = 0
				}
				n.install(t, restarts)
				pod, _ := n.GVisorPod(t, true)
				assertFlag(t, n, pod, true)
			})
			if checked == 0 {
				t.Errorf("no supported containerd release reads config version %d", doc.Version)
			}
		})
	}
}

func writeHost(t *testing.T, n *node, nodePath string, data []byte) {
	t.Helper()
	if err := os.WriteFile(n.HostPath(nodePath), data, 0o755); err != nil {
		t.Fatal(err)
	}
}

func nativeMachine() uint16 {
	if runtime.GOARCH == "arm64" {
		return installertest.MachineAArch64
	}
	return installertest.MachineX86_64
}
