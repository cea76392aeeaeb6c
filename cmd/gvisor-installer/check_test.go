// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/argcheck"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
)

// TestCheckArgs: the check mode accepts what a run accepts and refuses, with exit code 2, what a run refuses before
// acting (unknown flags, bad values, options that do not fit, -h), and touches nothing: the ready file a run removes
// first stays.
func TestCheckArgs(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	install := "install --host-root=/host --source=/opt/gvisor --runsc-config=/etc/gvisor-installer/runsc.toml --prove-sandbox=true " +
		"--restart=systemd --ready-file=" + ready + " --termination-message=/dev/termination-log"
	for args, want := range map[string]int{
		install: 0,
		"uninstall --host-root=/host --bin-dir=/var/bin/containerruntimes --restart=systemd --ready-file=" + ready: 0,
		"plan --uninstall --host-root=/host":                          0,
		"ready --ready-file=" + ready:                                 0,
		"prove --host-root=/ --registration-timeout=1m":               0,
		install + " --bogus":                                          2,
		install + " --prove-sandbox=maybe":                            2,
		install + " --restart=sometimes":                              2,
		install + " stray":                                            2,
		install + " -h":                                               2,
		"install --host-root=relative --source=/opt/gvisor":           2,
		"install --source=/opt/gvisor --restart=none --prove-sandbox": 2, // a proof needs the verified restart
		"install --host-root=/host --source=/opt/gvisor --label-node": 2, // without NODE_NAME
		"uninstall --source=/opt/gvisor":                              2, // install's flag
		"ready":                                                       2,
		"prove --bogus":                                               2,
		"prove --activate --host-root=/ --bin-dir=/var/bin/containerruntimes --nvproxy-preflight-binary=/var/bin/containerruntimes/gvisor-gpu-check": 0,
		"prove --host-root=/ --nvproxy-preflight-binary=/x":                    2, // nvproxy is set when a release is activated
		"prove --host-root=/ --prove-sandbox=false":                            2, // nothing to do
		"deactivate --host-root=/ --unless-enabled=gvisor-release.service":     0,
		"deactivate --host-root=/host --unless-enabled=gvisor-release.service": 2, // asks this machine's systemd
		"version": 2,
		"":        2,
	} {
		var stdout, stderr bytes.Buffer
		code := checkArgs(strings.Fields(args), &stdout, &stderr)
		if code != want || (code == 0) != (stdout.String() == argcheck.OK+"\n") {
			t.Errorf("check of %q: exit %d, stdout %q, stderr %q; want exit %d", args, code, stdout.String(), stderr.String(), want)
		}
	}
	t.Setenv(nodelabel.NodeNameEnv, "node-1")
	if code := checkArgs(strings.Fields(install+" --label-node"), &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Errorf("--label-node with %s: exit %d, want 0", nodelabel.NodeNameEnv, code)
	}
	if _, err := os.Stat(ready); err != nil {
		t.Errorf("the check touched the ready file: %v", err)
	}
}
