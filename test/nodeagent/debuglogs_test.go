// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"golang.org/x/sys/unix"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/debuglogs"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
)

// debugLogDir is the node's runsc debug log directory (v1alpha1.DebugLogDir without its slash).
const debugLogDir = "/var/log/runsc"

// TestNodeAgentDebugLogs is the OperatingSystemConfig mode's keeper of runsc's debug logs on a real node, run by a
// real systemd: the OSC of a pool with debug on (osctest.ProviderConfig) carries gvisor-debug-logs.service;
// node-agent's extractor takes the installer out of the installation image and its D-Bus code starts the unit,
// confined as it says (no capabilities, no new privileges, a seccomp filter, an empty /run, 64M), rated at most 2.0
// by systemd-analyze; a sandbox's log grown past the budget is truncated by it within a few of its passes.
func TestNodeAgentDebugLogs(t *testing.T) {
	s := newSuite(t)
	osc := s.metrics.DeepCopy()
	n := s.appliedNode(t, osc)
	unit := oscUnit(t, osc, oscwebhook.DebugLogsUnitName)

	binDir := extensionsv1alpha1.ContainerDRuntimeContainersBinFolder
	ensureMountPoint(t, binDir)
	ensureMountPoint(t, debugLogDir)
	logs := t.TempDir()
	sd := startSystemd(t,
		mount{Source: filepath.Join(n.HostRoot(), binDir), Target: binDir},
		mount{Source: logs, Target: debugLogDir})
	sd.writeUnit(t, unit.Name, *unit.Content)
	t.Cleanup(func() {
		if out, err := sd.systemctl(context.Background(), "stop", unit.Name).CombinedOutput(); err != nil {
			t.Errorf("systemctl stop %s: %v: %s", unit.Name, err, out)
		}
	})
	if _, err := nodeAgentSystemd(t, sd, systemdRequest{Op: "apply", Units: []string{unit.Name}}); err != nil {
		t.Fatalf("node-agent starting %s: %v", unit.Name, err)
	}
	assertConfined(t, sd, unit.Name, 64<<20)
	assertExposure(t, filepath.Join(sd.unitDir, unit.Name))

	// A sandbox's log past the budget: allocated on disk (what the keeper counts) without writing a GiB.
	log := filepath.Join(logs, "sandbox-a", "gvisor-boot.log")
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o664)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fallocate(int(f.Fd()), 0, 0, debuglogs.DefaultBudget+64<<20); err != nil {
		t.Fatal(err)
	}
	// Bound: three of the keeper's passes and slack for a loaded machine.
	deadline := time.Now().Add(3*debuglogs.DefaultInterval + 15*time.Second)
	for {
		b, err := os.ReadFile(log)
		if err == nil && strings.HasPrefix(string(b), debuglogs.TruncatedNote) {
			break
		}
		if time.Now().After(deadline) {
			st, _ := os.Stat(log)
			t.Fatalf("%s did not truncate the log past its budget (%d bytes now):\n%s", unit.Name, st.Size(), sd.journal(t, unit.Name))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
