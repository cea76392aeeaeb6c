// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestInstalledRunscRuns installs the real static gVisor release and starts a sandbox with the runsc the installer
// put into the bin dir: the binaries we ship run (rootless, no network; real CRI pods under runsc need the test
// harness's adjustments, see test/node and test/sandbox).
func TestInstalledRunscRuns(t *testing.T) {
	h := newHost(t, readTestdata(t, "configs/gardener-v2.toml"))
	installertest.RealRelease(t, h.source)
	if _, err := installer.Install(context.Background(), h.options()); err != nil {
		t.Fatal(err)
	}
	runsc := h.path(binDir + "/runsc")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(runsc, "--root", filepath.Join(t.TempDir(), "state"), "--rootless", "--network=none", "do", "echo", "hello from gVisor")
	cmd.Dir = t.TempDir()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s do: %v\n%s", runsc, err, stderr.String())
	}
	if got := stdout.String(); got != "hello from gVisor\n" {
		t.Errorf("sandbox printed %q", got)
	}
	out, err := exec.Command(runsc, "--version").Output()
	if err != nil || !bytes.Contains(out, []byte("runsc version v0.0.0-")) {
		t.Errorf("runsc --version = %q, %v (want the stamped release version)", out, err)
	}
}

// TestRuncTrapIsReal guards the premise of the runc handling: on containerd 1.x (Debian's 1.6 and 1.7), Debian's
// packaged config plus a bare runsc table (what a naive installer appends) loses runc and CRI fails, although the
// daemon runs. Our verifier catches that; our editor (TestDaemonLifecycle) avoids it.
func TestRuncTrapIsReal(t *testing.T) {
	for _, release := range []string{"1.6", "1.7"} {
		t.Run(release, func(t *testing.T) {
			c := installertest.Release(t, release)
			naive := append(readTestdata(t, "configs/debian-1.6-packaged.toml"), []byte(`
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runsc]
  runtime_type = "io.containerd.runsc.v1"
`)...)
			h := newHost(t, naive)
			d := installertest.StartDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
			err := verify.CRI{Socket: d.Socket}.Verify(context.Background(), verify.Runsc)
			if err == nil {
				t.Fatalf("%s serves CRI with runc missing: the trap is gone, revisit containerdconfig's runc handling", c)
			}
			t.Logf("as expected, CRI fails: %v", err)
		})
	}
}
