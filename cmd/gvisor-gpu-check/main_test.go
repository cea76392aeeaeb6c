// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gvisor-gpu-check/preflight"
)

// TestRunPrintsOneVerdict: the command's output is one JSON verdict (the installer's contract), and usage errors
// (and a probe without a driver) are errors, not output.
func TestRunPrintsOneVerdict(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"preflight", "--driver-version=580.159.04"}, &out); err != nil {
		t.Fatal(err)
	}
	var v preflight.Verdict
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil || v.Status != preflight.Supported || v.GVisor == "" {
		t.Errorf("verdict %+v (%v), want supported with the gVisor version", v, err)
	}
	if dec.More() {
		t.Error("more than one JSON value on stdout")
	}
	for _, args := range [][]string{nil, {"check"}, {"preflight", "extra"}, {"preflight", "--no-such-flag"}, {"probe", "extra"},
		{"probe", "--control=" + t.TempDir() + "/nvidiactl"}} {
		out.Reset()
		if err := run(args, &out); err == nil || out.Len() != 0 {
			t.Errorf("run(%q) = %v with output %q, want a usage error and no verdict", args, err, out.String())
		}
	}
	out.Reset()
	if err := run([]string{"--version"}, &out); err != nil || strings.TrimSpace(out.String()) != version {
		t.Errorf("--version printed %q (%v)", out.String(), err)
	}
}
