// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"strings"
	"testing"
)

// criError is containerd's answer to a sandbox whose runsc does not run, as the proof quotes it (a real node's,
// containerd 2.4.2).
const criError = `starting a pod sandbox with runtime handler "runsc" over /host/run/containerd/containerd.sock: rpc error: ` +
	`code = Unknown desc = failed to start sandbox "57a19ff0a00a4b671dae79231ecf1bc0f3aa07d81f21d87b7f0517f4f3215795": ` +
	`failed to create containerd task: failed to create shim task: OCI runtime create failed: exec: "runsc": executable ` +
	`file not found in $PATH (unable to retrieve OCI runtime error: open /run/containerd/io.containerd.runtime.v2.task/` +
	`k8s.io/57a19ff0a00a4b671dae79231ecf1bc0f3aa07d81f21d87b7f0517f4f3215795/log.json: no such file or directory)`

// TestBoundKeepsTheDecisivePart: real installer, idle-container and node reasons, bounded, keep what an operator
// acts on (the installer's diagnosis, runsc's own words, the release the node fell back to), not the program's
// name and version at the end.
func TestBoundKeepsTheDecisivePart(t *testing.T) {
	for name, tc := range map[string]struct {
		reason string
		want   []string
	}{
		"runsc not executable, install": {
			reason: "Error: gVisor sandbox did not start on containerd 2.4.2: runsc at /var/bin/containerruntimes/runsc is not an " +
				"executable file (-rw-r--r--); " + criError + "; gvisor-installer v0.1.0-dev install failed",
			want: []string{"Error: gVisor sandbox did not start on containerd 2.4.2", "runsc at /var/bin/containerruntimes/runsc is not an executable file (-rw-r--r--)"},
		},
		"runsc not executable, re-proof of the idle container": {
			reason: "Error: gVisor sandbox proof failed: gVisor sandbox did not start on containerd 2.4.2: runsc at /var/bin/containerruntimes/runsc " +
				"is not an executable file (-rw-r--r--); " + criError + "; gvisor-installer v0.1.0-dev prove failed; gvisor-idle reprove",
			want: []string{"Error: gVisor sandbox proof failed", "is not an executable file (-rw-r--r--)"},
		},
		"fallback to the last proven release": {
			reason: "Error: release v20260905.0-1a2b3c4d failed: gVisor sandbox did not start on containerd 2.4.2: " + criError +
				"; runsc: panic: error initializing vCPU: KVM_CREATE_VCPU failed: invalid argument; running release v20260801.0-9f8e7d6c " +
				"(proven again); gvisor-installer v0.1.0-dev install failed",
			want: []string{"Error: release v20260905.0-1a2b3c4d failed", "runsc: panic: error initializing vCPU", "running release v20260801.0-9f8e7d6c (proven again)"},
		},
		"fallback, as the installer words it": {
			reason: "Error: release v0.0.0-20260905035102-160fafc42237-rebuild-4f1d2c3b9a0e failed; running release v0.0.0-20260905035102-160fafc42237-dc1c48e977be with its previous runsc flags (proven again); " +
				"gVisor sandbox did not start on containerd 2.4.2: " + criError + "; runsc: panic: error initializing vCPU: KVM_CREATE_VCPU failed: invalid argument; gvisor-installer v0.1.0-dev install failed",
			want: []string{"running release v0.0.0-20260905035102-160fafc42237-dc1c48e977be with its previous runsc flags", "gVisor sandbox did not start", "runsc: panic: error initializing vCPU"},
		},
		"remembered failure": {
			reason: "Error: release v0.0.0-20260905035102-160fafc42237-dc1c48e977be failed; running release v0.0.0-20260905035102-160fafc42237-dc1c48e977be with its previous runsc flags; " +
				"not tried again before 2026-12-02T01:20:00Z (2 failures, the last at 2026-12-02T01:10:00Z; new runsc flags, containerd or kernel are tried at once); " +
				"gVisor sandbox did not start on containerd 2.4.2: " + criError + "; runsc: panic: error initializing vCPU; gvisor-installer v0.1.0-dev install failed",
			want: []string{"with its previous runsc flags", "runsc: panic: error initializing vCPU"},
		},
		"NVIDIA driver changed, re-proof of the idle container": {
			// A real node's line (cmd/gvisor-installer TestReproveNamesAChangedDriver): runsc refuses the driver.
			reason: "Error: gVisor sandbox proof failed: the node's NVIDIA driver changed since the install turned nvproxy on " +
				"(upgraded or unloaded): run a driver the shipped runsc supports, or recreate this node's installation pod to judge " +
				"the new one; gVisor sandbox did not start on containerd 2.4.2: " +
				`starting a pod sandbox with runtime handler "runsc" over /host/run/containerd/containerd.sock: rpc error: code = Unknown ` +
				`desc = failed to start sandbox "deac6143dec530072381b6f09de29725cfa7a01923b4b5c96d8bc633256d7b20": failed to create ` +
				"containerd task: failed to create shim task: OCI runtime create failed: creating container: cannot create sandbox: " +
				"cannot read client sync file: waiting for sandbox to start: EOF; runsc: creating loader: registering filesystems: " +
				"registering nvproxy driver: unsupported Nvidia driver version: 535.104.05; gvisor-installer v0.1.0 prove failed; gvisor-idle reprove",
			want: []string{"the node's NVIDIA driver changed since the install turned nvproxy on (upgraded or unloaded): run a driver " +
				"the shipped runsc supports, or recreate this node's installation pod to judge the new one", "unsupported Nvidia driver version: 535.104.05"},
		},
		"one long wrapped error": {
			reason: "Error: gVisor sandbox did not start on containerd 2.4.2: " + criError,
			want:   []string{"Error: gVisor sandbox did not start", "no such file or directory)", cutMark},
		},
	} {
		got := bound(tc.reason)
		if len(got) > maxReasonLength {
			t.Errorf("%s: %d characters, more than %d: %q", name, len(got), maxReasonLength, got)
		}
		for _, want := range tc.want {
			if !strings.Contains(got, want) {
				t.Errorf("%s: bound lacks %q:\n%s", name, want, got)
			}
		}
		if strings.Contains(got, "gvisor-installer v") || strings.Contains(got, "gvisor-idle reprove") {
			t.Errorf("%s: bound spends the message on the program's name:\n%s", name, got)
		}
		if bound(tc.reason) != got {
			t.Errorf("%s: bound is not deterministic", name)
		}
		t.Logf("%s (%d): %s", name, len(got), got)
	}
	for _, short := range []string{"CrashLoopBackOff: containerd 1.6.20 is not supported (minimum containerd 1.7.0); gvisor-installer v0.1.0 install failed", "installing"} {
		if bound(short) != short {
			t.Errorf("bound changed a short reason: %q", bound(short))
		}
	}
}
