// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// TestUninstallRemovesHandler installs, then uninstalls with the installer's real code path: containerd is
// restarted once, CRI no longer lists runsc and refuses a runsc pod, config.toml is the release default again,
// the binaries are gone, and a runc pod still runs.
func TestUninstallRemovesHandler(t *testing.T) {
	s := newSuite(t)
	s.releases(t, nil, func(t *testing.T, c installertest.Containerd) {
		n := s.newNode(t, c, nodetest.Config{}, "[runsc_config]\n")
		original, err := os.ReadFile(n.HostPath(nodecontract.ContainerdConfigPath))
		if err != nil {
			t.Fatal(err)
		}
		n.install(t, 1)
		ctx := context.Background()
		if handlers, err := n.RuntimeHandlers(ctx); err != nil || !slices.Contains(handlers, "runsc") {
			t.Fatalf("CRI runtimes after install: %v %v", handlers, err)
		}

		before := n.r.Restarts
		res, err := installer.Uninstall(ctx, n.o)
		if err != nil {
			t.Fatalf("uninstall on %s: %v", c, err)
		}
		if n.r.Restarts-before != 1 || res.Restarts != 1 {
			t.Errorf("uninstall: %d containerd restarts (result says %d), want 1: %s", n.r.Restarts-before, res.Restarts, res.Summary())
		}
		handlers, err := n.RuntimeHandlers(ctx)
		if err != nil || slices.Contains(handlers, "runsc") || !slices.Contains(handlers, "runc") {
			t.Errorf("CRI runtimes after uninstall: %v (%v), want runc and no runsc", handlers, err)
		}
		if pod, err := n.RunPod(ctx, nodetest.PodSpec{Handler: "runsc"}); err == nil {
			t.Errorf("CRI started a runsc pod (%s) after uninstall", pod.ID)
		} else if !strings.Contains(err.Error(), "runsc") {
			t.Errorf("the refused runsc pod's error does not name the handler: %v", err)
		}
		if got, err := os.ReadFile(n.HostPath(nodecontract.ContainerdConfigPath)); err != nil || !bytes.Equal(got, original) {
			t.Errorf("config.toml after uninstall is not the release default the node started with (%v):\n%s", err, got)
		}
		for _, name := range []string{"runsc", nodetest.ShimName} {
			if _, err := os.Lstat(filepath.Join(n.HostPath(n.BinDir()), name)); err == nil {
				t.Errorf("%s is still in the bin dir after uninstall", name)
			}
		}
		runcPod(t, n)
	})
}
