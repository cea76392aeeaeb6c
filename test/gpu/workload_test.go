// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gpu_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/nodeinstall"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestWorkloadRunsTheMachinesPrograms is the GPU check's workload path short of a GPU, in `make test`: a one-shot
// container over the pause image that asks for the CDI device of the check's spec (writeGPUSpec, with no device
// nodes here) gets the machine's userland and the driver capabilities from containerd's CDI injection and runs the
// machine's own programs, natively (runc: the machine's kernel) and in gVisor (gVisor's kernel), with a writable
// root.
func TestWorkloadRunsTheMachinesPrograms(t *testing.T) {
	n := newNode(t)
	o := nodeinstall.New(t, n, nodeinstall.Setup{RunscConfig: nodeinstall.EmptyRunscConfig, WithoutProof: true}).Options
	if _, err := installer.Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	testutil.Must(t, writeGPUSpec(n, nil))
	const script = `uname -r; echo "home=$HOME caps=$NVIDIA_DRIVER_CAPABILITIES"; touch /written && echo writable`
	native, _ := workload(t, n, "", "sh", "-c", script)
	inGVisor, _ := workload(t, n, sandbox.DefaultHandler, "sh", "-c", script)
	for name, out := range map[string]string{"runc": native, "gVisor": inGVisor} {
		if !strings.Contains(out, "home=/ caps=compute,utility\n") || !strings.Contains(out, "writable\n") {
			t.Errorf("in %s: %q, want the check's environment and a writable root", name, out)
		}
	}
	host, err := os.ReadFile("/proc/sys/kernel/osrelease")
	testutil.Must(t, err)
	machines := strings.HasPrefix(native, strings.TrimSpace(string(host)))
	gvisors := !strings.HasPrefix(inGVisor, strings.TrimSpace(string(host))) // gVisor reports a kernel of its own
	if !machines || !gvisors {
		t.Errorf("kernels: runc %q (machine %q), gVisor %q; want the machine's and gVisor's", native, host, inGVisor)
	}
}
