// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/nodeinstall"
)

// TestBrokenRunscIsNotReady is the "a release whose runsc cannot run is installed and reported Ready", on
// real nodes (test/node: a real containerd whose runsc sandboxes really start) of containerd 1.7 and 2.4. The
// release passes every check of the release (SHA-512, ELF machine, static), but its runsc is no program: the real
// shim cannot start a sandbox with it. Install registers runsc, proves, fails with containerd's error and restores
// containerd's configuration, so runsc is not registered and no sandbox is left. The real release then installs,
// its proof sandbox starts, and the install succeeds.
func TestBrokenRunscIsNotReady(t *testing.T) {
	tools := nodetest.NodeTools(t)
	images := nodetest.BuildImages(t, tools)
	good := filepath.Join(t.TempDir(), "gvisor")
	installertest.RealRelease(t, good)
	broken := filepath.Join(t.TempDir(), "broken")
	installertest.WriteRelease(t, broken, map[string][]byte{
		"runsc":                    installertest.StubELF(nativeMachine(), "not a runsc"),
		"containerd-shim-runsc-v1": mustReadT(t, filepath.Join(good, "containerd-shim-runsc-v1")),
	})
	for _, release := range []string{"1.7", "2.4"} {
		t.Run(release, func(t *testing.T) {
			c := installertest.Release(t, release)
			n := nodetest.New(t, nodetest.Config{Containerd: c, Tools: tools, Images: images})
			// On a failure the fixture's cleanup logs the installer's log.
			o := nodeinstall.New(t, n, nodeinstall.Setup{Release: broken, ProofTimeout: 45 * time.Second}).Options
			original := mustReadT(t, n.HostPath(nodecontract.ContainerdConfigPath))
			ctx := context.Background()

			res, err := installer.Install(ctx, o)
			if err == nil || refusal.Is(err) {
				t.Fatalf("install of a runsc that cannot run: want a failure, got %v (%s)", err, res.Summary())
			}
			if want := "gVisor sandbox did not start on containerd " + c.Version; !strings.Contains(err.Error(), want) || !strings.Contains(res.FailedSummary(), want) {
				t.Errorf("error and failed summary must say %q:\n%v\n%s", want, err, res.FailedSummary())
			}
			t.Logf("%s", res.FailedSummary())
			if !res.RolledBack {
				t.Errorf("containerd's previous configuration not restored: %s", res.FailedSummary())
			}
			if err := o.Verifier.Verify(ctx, verify.NoRunsc); err != nil {
				t.Errorf("runsc registered after the failed proof: %v", err)
			}
			if got := mustReadT(t, n.HostPath(nodecontract.ContainerdConfigPath)); !bytes.Equal(got, original) {
				t.Errorf("config.toml is not what it was:\n%s", got)
			}
			if _, err := os.Stat(n.HostPath(nodecontract.DropInPath)); err == nil {
				t.Errorf("the drop-in is still there")
			}
			if left := proofSandboxes(t, n.Socket()); left != 0 {
				t.Errorf("%d proof sandboxes left behind", left)
			}

			o.Source = good
			res, err = installer.Install(ctx, o)
			if err != nil || res.Sandbox == nil || !strings.Contains(res.Summary(), "gVisor sandbox started in") {
				t.Fatalf("install of the real release: %s, %v", res.Summary(), err)
			}
			t.Logf("%s", res.Summary())
			if left := proofSandboxes(t, n.Socket()); left != 0 {
				t.Errorf("%d proof sandboxes left behind", left)
			}
		})
	}
}

func proofSandboxes(t *testing.T, socket string) int {
	t.Helper()
	conn, err := verify.Dial(socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	list, err := runtimeapi.NewRuntimeServiceClient(conn).ListPodSandbox(context.Background(), &runtimeapi.ListPodSandboxRequest{
		Filter: &runtimeapi.PodSandboxFilter{LabelSelector: map[string]string{sandbox.LabelKey: "gvisor-installer"}}})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.GetItems())
}
