// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// TestChartProofAndTerminationMessage: the installation chart runs the sandbox proof in install mode unless the
// operator switched it off, and in both modes writes the termination message where the kubelet reads it, with the
// logs' tail standing in when the installer could not write it.
func TestChartProofAndTerminationMessage(t *testing.T) {
	r := newRenderer(t)
	for _, tc := range []struct {
		mode      render.Mode
		skip      bool
		wantProof bool
	}{
		{render.ModeInstall, false, true},
		{render.ModeInstall, true, false},
		{render.ModeUninstall, false, false},
	} {
		m, err := r.Installation(render.InstallationValues{WorkerPool: "pool", BinaryPath: "/var/bin/containerruntimes", Mode: tc.mode, SkipSandboxProof: tc.skip})
		if err != nil {
			t.Fatal(err)
		}
		var c corev1.Container
		for _, o := range m.Objects() {
			if ds, ok := o.(*appsv1.DaemonSet); ok {
				c = ds.Spec.Template.Spec.InitContainers[0] // the installer (contract_test.go)
			}
		}
		fs, f := newFlagSet(string(tc.mode), io.Discard)
		if err := fs.Parse(c.Command[2:]); err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		o, err := f.options(string(tc.mode), io.Discard)
		if err != nil {
			t.Fatalf("%s, SkipSandboxProof=%v: %v", tc.mode, tc.skip, err)
		}
		if got := o.Prover != nil; got != tc.wantProof {
			t.Errorf("%s, SkipSandboxProof=%v: prover %v, want %v (%v)", tc.mode, tc.skip, got, tc.wantProof, c.Command)
		}
		if p, ok := o.Prover.(sandbox.CRI); tc.wantProof && (!ok || p.Socket != "/host/run/containerd/containerd.sock") {
			t.Errorf("prover %+v: want CRI over the node's containerd socket under --host-root", o.Prover)
		}
		if f.terminationMessage != c.TerminationMessagePath && (c.TerminationMessagePath != "" || f.terminationMessage != corev1.TerminationMessagePathDefault) {
			t.Errorf("%s: --termination-message=%q, container terminationMessagePath %q", tc.mode, f.terminationMessage, c.TerminationMessagePath)
		}
		if c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
			t.Errorf("%s: terminationMessagePolicy %q, want FallbackToLogsOnError", tc.mode, c.TerminationMessagePolicy)
		}
	}
}

// TestProveSandboxFlag: the proof is on with --restart=systemd unless turned off; --restart=none has no CRI, so
// the proof is off there, and asking for it explicitly is a usage error.
func TestProveSandboxFlag(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		wantProof bool
		wantErr   string
	}{
		{args: nil, wantProof: true},
		{args: []string{"--prove-sandbox=false"}},
		{args: []string{"--restart=none"}},
		{args: []string{"--restart=none", "--prove-sandbox=false"}},
		{args: []string{"--restart=none", "--prove-sandbox"}, wantErr: "--prove-sandbox needs --restart=systemd"},
	} {
		for _, cmd := range []string{"install", "plan"} {
			fs, f := newFlagSet(cmd, io.Discard)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			o, err := f.options(cmd, io.Discard)
			if err == nil {
				_, err = f.resolve(cmd, io.Discard) // installer.Resolve says which flags do not fit together
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("%s %v: error %v, want %q", cmd, tc.args, err, tc.wantErr)
				}
				continue
			}
			if err != nil || (o.Prover != nil) != tc.wantProof {
				t.Errorf("%s %v: prover %v, %v; want proof %v", cmd, tc.args, o.Prover, err, tc.wantProof)
			}
		}
	}
	if fs, _ := newFlagSet("uninstall", io.Discard); fs.Lookup("prove-sandbox") != nil {
		t.Error("uninstall has --prove-sandbox: it proves nothing")
	}
}

// TestTerminationMessage: a failed run writes one line saying why to --termination-message when that file exists
// (the kubelet creates it), and creates nothing when it does not (outside Kubernetes).
func TestTerminationMessage(t *testing.T) {
	root, flags := node(t)
	if err := os.WriteFile(filepath.Join(root, "etc/containerd/config.toml"), []byte("[plugins\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	msg := filepath.Join(t.TempDir(), "termination-log")
	if err := os.WriteFile(msg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, _ := runCmd(context.Background(), append([]string{"install", "--termination-message=" + msg}, flags...)...)
	data, _ := os.ReadFile(msg)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "install failed (") || !strings.Contains(lines[0], "refusing /etc/containerd/config.toml") {
		t.Errorf("exit %d, termination message %q: want one line saying why install failed", code, data)
	}

	absent := filepath.Join(t.TempDir(), "termination-log")
	code, _, _ = runCmd(context.Background(), "uninstall", "--termination-message="+absent, "--host-root="+root, "--restart=none")
	if _, err := os.Stat(absent); code != 2 || err == nil {
		t.Errorf("exit %d, %s exists (%v): want the refusal and no file created", code, absent, err)
	}
}
