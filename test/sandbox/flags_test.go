// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestRunscFlagChangeNextSandbox changes a runsc flag (net-raw) by re-running the installer with a new runsc
// config: containerd is not restarted, the running sandbox keeps its flags and keeps running, and the next
// sandbox's runsc process carries the new flag, read by the shim from runsc.toml at its start.
func TestRunscFlagChangeNextSandbox(t *testing.T) {
	s := newSuite(t)
	s.releases(t, nil, func(t *testing.T, c installertest.Containerd) {
		n := s.newNode(t, c, nodetest.Config{}, "[runsc_config]\n")
		n.install(t, 1)
		before, beforeID := n.GVisorPod(t, false)
		assertFlag(t, n, before, false)

		const netRaw = "[runsc_config]\n  net-raw = \"true\"\n"
		n.o.RunscConfig = writeTemp(t, "runsc-net-raw.toml", netRaw)
		starts := n.Starts()
		res := n.install(t, 0)
		// The handler's ConfigPath is a link into the current release: the flag change rewrites that release's
		// runsc.toml, and the shim reads it through the link.
		if !slices.ContainsFunc(res.Changed, func(c string) bool { return strings.HasPrefix(c, "write ") && strings.Contains(c, "/runsc.toml ") }) {
			t.Errorf("the flag change did not write the current release's runsc.toml: %s", res.Summary())
		}
		resolved, err := hostfs.ResolveUnder(n.HostPath("/"), runscconfig.NodePath)
		testutil.Must(t, err)
		if got, err := os.ReadFile(resolved); err != nil || !strings.HasSuffix(string(got), netRaw) || !strings.Contains(string(got), "binary_name = ") {
			t.Errorf("%s = %q (%v), want binary_name and %q", runscconfig.NodePath, got, err, netRaw)
		}
		if n.Starts() != starts {
			t.Errorf("containerd was (re)started %d times by the flag change", n.Starts()-starts)
		}

		after, _ := n.GVisorPod(t, false)
		assertFlag(t, n, after, true)
		assertFlag(t, n, before, false)
		if _, err := n.ExecSync(context.Background(), beforeID, "true"); err != nil {
			t.Errorf("the sandbox started before the flag change no longer runs: %v", err)
		}
	})
}

// assertFlag checks whether the pod's runsc sandbox process was started with --net-raw=true (runsc passes on
// only the flags that differ from their defaults, so without it the command line has no --net-raw at all).
func assertFlag(t *testing.T, n *node, pod *nodetest.Pod, want bool) {
	t.Helper()
	cmdline, err := n.RunscSandboxCmdline(pod.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Contains(cmdline, "--net-raw=true"); got != want {
		t.Errorf("the runsc sandbox of pod %s: --net-raw=true on its command line is %v, want %v: %q", pod.ID, got, want, cmdline)
	}
}
