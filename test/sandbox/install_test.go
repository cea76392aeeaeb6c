// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// TestInstallStartsGVisorPod installs with the installer's real code path onto a node running on the release's
// default config (one containerd restart, verified over CRI), then starts a runsc pod on the pod network: its
// container runs on the gVisor kernel, CRI reports handler runsc, the sandbox is a real runsc process, the pod
// has its bridge address. A runc pod still runs beside it.
func TestInstallStartsGVisorPod(t *testing.T) {
	s := newSuite(t)
	s.releases(t, nil, func(t *testing.T, c installertest.Containerd) {
		n := s.newNode(t, c, nodetest.Config{}, "[runsc_config]\n")
		n.install(t, 1)
		ctx := context.Background()
		if handlers, err := n.RuntimeHandlers(ctx); err != nil || !slices.Contains(handlers, "runsc") {
			t.Fatalf("CRI runtimes after install: %v %v", handlers, err)
		}
		pod, id := n.GVisorPod(t, false)
		if _, err := n.RunscSandboxCmdline(pod.ID); err != nil {
			t.Error(err)
		}
		addr, err := n.ExecSync(ctx, id, "ip", "-4", "addr", "show", "eth0")
		if err != nil || !strings.Contains(addr, "inet 10.88.0.") {
			t.Errorf("the runsc pod has no address on the node's bridge network: %v\n%s", err, addr)
		}
		runcPod(t, n)
	})
}
