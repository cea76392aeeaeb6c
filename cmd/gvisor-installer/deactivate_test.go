// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeactivateKeepsTheLayoutUnlessTheUnitIsDisabled: deactivate --unless-enabled removes nothing while systemd says
// the unit is enabled (a shutdown, node-agent restarting it) or cannot say; only "disabled" (node-agent removed the
// unit from the OSC) lets it act. systemctl is a stand-in printing the answer, so the node's / is never touched; the
// VM node of test/e2e runs the unit under a real systemd and gardener-node-agent.
func TestDeactivateKeepsTheLayoutUnlessTheUnitIsDisabled(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	for _, answer := range []string{"enabled", "static", ""} {
		script := "#!/bin/sh\necho " + answer + "\nexit 1\n"
		if err := os.WriteFile(filepath.Join(bin, "systemctl"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"deactivate", "--host-root=/", "--bin-dir=/nonexistent/bin", "--unless-enabled=gvisor-release.service"}, &stdout, &stderr)
		if code != 0 || !strings.Contains(stdout.String(), "deactivate: unchanged; gvisor-release.service is not disabled") {
			t.Errorf("systemctl answers %q: exit %d, stdout %q, stderr %q; want exit 0 and nothing done", answer, code, stdout.String(), stderr.String())
		}
	}
}
