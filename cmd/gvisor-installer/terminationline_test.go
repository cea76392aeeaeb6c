// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// TestTerminationLine: the termination message starts with the stable reason when the run reached a verdict
// (what the healthcheck controller quotes per node), stays one line and is bounded.
func TestTerminationLine(t *testing.T) {
	tooOld := "containerd 1.6.20 is not supported (minimum containerd 1.7.0)"
	if got := terminationLine("install", errors.New("refusing containerd 1.6.20:\nlong explanation"), tooOld); !strings.HasPrefix(got, tooOld+"; gvisor-installer ") ||
		!strings.HasSuffix(got, " install failed") || strings.Contains(got, "\n") {
		t.Errorf("with a verdict: %q", got)
	}
	if got := terminationLine("uninstall", errors.New("lock\ntimeout"), ""); !strings.HasPrefix(got, "uninstall failed (") || !strings.HasSuffix(got, "): lock timeout") {
		t.Errorf("without a verdict: %q", got)
	}
	if got := terminationLine("install", errors.New(strings.Repeat("x", 5000)), ""); len(got) != nodecontract.MaxReportLength || !strings.HasSuffix(got, "...") {
		t.Errorf("not bounded: %d bytes", len(got))
	}
}

// TestTerminationMessageOnSuccess: a successful install or uninstall writes package report's line to
// --termination-message (what the pod's status keeps once the installer container has exited), with the versions
// and the foreign shims it found; a failure afterwards replaces it with the reason.
func TestTerminationMessageOnSuccess(t *testing.T) {
	root, flags := node(t)
	foreign := filepath.Join(root, "var/bin/containerruntimes/containerd-shim-runc-v2")
	if err := os.MkdirAll(filepath.Dir(foreign), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(foreign, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	msg := filepath.Join(t.TempDir(), "termination-log")
	if err := os.WriteFile(msg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		data, _ := os.ReadFile(msg)
		return string(data)
	}
	code, _, errOut := runCmd(context.Background(), append([]string{"install", "--termination-message=" + msg}, flags...)...)
	line := read()
	s, ok := nodecontract.ParseReport(line)
	// The stub release's runsc is no Go binary: its version is unknown; --restart=none asks containerd nothing.
	if code != 0 || !ok || s.GVisor != "unknown" || len(s.RunscSum) != 12 || s.Containerd != "" ||
		!reflect.DeepEqual(s.Foreign, []string{"/var/bin/containerruntimes/containerd-shim-runc-v2"}) || strings.Count(line, "\n") != 1 {
		t.Errorf("install: exit %d, termination message %q (%+v, %v):\n%s", code, line, s, ok, errOut)
	}
	code, _, errOut = runCmd(context.Background(), "uninstall", "--termination-message="+msg, "--host-root="+root, "--restart=none")
	if line := read(); code != 0 || line != "uninstalled gVisor; foreign shims: /var/bin/containerruntimes/containerd-shim-runc-v2\n" {
		t.Errorf("uninstall: exit %d, termination message %q:\n%s", code, line, errOut)
	}
}
