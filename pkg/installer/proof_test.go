// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/restart"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// unpullable is a sandbox image that exists nowhere; containerd fails to pull it on loopback. The proofs below
// fail for real, with containerd's own error, and never reach out to a registry.
const unpullable = "127.0.0.1:1/gvisor-test/pause:none"

// offline points a testdata config's sandbox image at unpullable (and fails if it has none to replace).
func offline(t *testing.T, config []byte) []byte {
	t.Helper()
	for _, img := range []string{"registry.k8s.io/pause:3.10.2", "registry.k8s.io/pause:3.10"} {
		if bytes.Contains(config, []byte(img)) {
			return bytes.ReplaceAll(config, []byte(img), []byte(unpullable))
		}
	}
	t.Fatal("the config names no sandbox image to replace: a proof would pull from a registry")
	return nil
}

// proofNode is a host with a real containerd on an offline config, and options with the real CRI prover.
func proofNode(t *testing.T, release, config string) (*host, installer.Options, *installertest.Restarter, []byte) {
	t.Helper()
	c := installertest.Release(t, release)
	original := offline(t, relativeImports(readTestdata(t, config)))
	h := newHost(t, original)
	d := installertest.StartDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	r := &installertest.Restarter{D: d}
	o := h.options()
	o.Restarter, o.Verifier, o.VerifyTimeout = r, verify.CRI{Socket: d.Socket}, 10*time.Second
	o.Prover = sandbox.CRI{Socket: d.Socket, Timeout: 20 * time.Second, CgroupParent: "/gvisor-installer-test"}
	return h, o, r, original
}

// TestProofFailureRestoresConfig: the first install registers runsc (containerd 2.4, drop-in) and restarts
// containerd, but the proof sandbox does not start (here its image cannot be pulled: containerd's own error). The
// installer restores containerd's previous configuration, so runsc is not registered, and fails (exit 1), saying
// why in the error and the failed summary: containerd's version and the CRI error. No sandbox is left behind.
func TestProofFailureRestoresConfig(t *testing.T) {
	h, o, r, original := proofNode(t, "2.4", "configs/default-2.4.toml")
	res, err := installer.Install(context.Background(), o)
	if err == nil || refusal.Is(err) {
		t.Fatalf("want a failure, got %v (%s)", err, res.Summary())
	}
	for _, want := range []string{"gVisor sandbox did not start on containerd 2.4.2", `runtime handler "runsc"`, unpullable, "containerd's previous configuration is restored, runsc is not registered"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
	summary := res.FailedSummary()
	for _, want := range []string{"install FAILED: ", "containerd restarted (2)", "previous containerd config restored", "gVisor sandbox did not start on containerd 2.4.2", unpullable} {
		if !strings.Contains(summary, want) {
			t.Errorf("failed summary does not say %q: %s", want, summary)
		}
	}
	if r.Restarts != 2 || !res.RolledBack || res.Sandbox != nil {
		t.Errorf("want the install's restart and the rollback's, no proof: %s (%d restarts)", summary, r.Restarts)
	}
	if h.exists(nodecontract.DropInPath) || !bytes.Equal(h.read(t, nodecontract.ContainerdConfigPath), original) {
		t.Error("containerd's previous configuration is not restored")
	}
	if err := o.Verifier.Verify(context.Background(), verify.NoRunsc); err != nil {
		t.Errorf("runsc still registered: %v", err)
	}
	if n := sandboxCount(t, o); n != 0 {
		t.Errorf("%d sandboxes left behind", n)
	}
	if !strings.Contains(h.logs.String(), "step=prove-sandbox") {
		t.Errorf("no prove-sandbox step in the log:\n%s", h.logs)
	}
}

// TestProofFailureUnregistersRunsc: runsc was registered by an earlier run (containerd 1.7, in place) and works
// no longer (here: the sandbox image went). A re-run changes no file, proves, fails and unregisters runsc with the
// uninstall's change (config.toml is the operator's original again); the next run, within the failure's back-off,
// does not register runsc and restart containerd again only to withdraw it: it refuses from memory, touching nothing,
// so the pod keeps failing (saying why) until the back-off passed or the release, flags, containerd or kernel change.
func TestProofFailureUnregistersRunsc(t *testing.T) {
	h, o, r, original := proofNode(t, "1.7", "configs/gardener-v2.toml")
	withoutProof := o
	withoutProof.Prover = nil
	if _, err := installer.Install(context.Background(), withoutProof); err != nil {
		t.Fatal(err)
	}
	r.Restarts = 0

	res, err := installer.Install(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "gVisor sandbox did not start on containerd 1.7.35") || !strings.Contains(err.Error(), "runsc is unregistered from containerd") {
		t.Fatalf("re-run: want the proof's failure and runsc unregistered, got %v", err)
	}
	if !res.Unregistered || res.RolledBack || r.Restarts != 1 || !strings.Contains(res.FailedSummary(), "runsc unregistered") {
		t.Errorf("re-run: want one restart to unregister runsc: %s (%d restarts)", res.FailedSummary(), r.Restarts)
	}
	if got := h.read(t, nodecontract.ContainerdConfigPath); !bytes.Equal(got, original) {
		t.Errorf("config.toml is not the operator's original:\n%s", got)
	}
	if err := o.Verifier.Verify(context.Background(), verify.NoRunsc); err != nil {
		t.Errorf("runsc still registered: %v", err)
	}

	r.Restarts = 0
	before := installertest.HashTree(t, h.root)
	res, err = installer.Install(context.Background(), o)
	if err == nil || r.Restarts != 0 || !strings.Contains(err.Error(), "(1 failures, the last at ") ||
		!strings.Contains(err.Error(), "runsc is not registered") || !strings.Contains(err.Error(), unpullable) {
		t.Errorf("next run: want it refused from memory, naming the reason and that runsc is not registered, without a restart: %s, %v (%d restarts)", res.FailedSummary(), err, r.Restarts)
	}
	if !reflect.DeepEqual(before, installertest.HashTree(t, h.root)) {
		t.Errorf("the remembered failure changed the node")
	}
	if err := o.Verifier.Verify(context.Background(), verify.NoRunsc); err != nil {
		t.Errorf("runsc registered after a failed proof: %v", err)
	}
	if n := sandboxCount(t, o); n != 0 {
		t.Errorf("%d sandboxes left behind", n)
	}
}

// TestProverNeedsRestart: a proof that fails must be able to restore containerd's configuration, so a Prover
// without a restarter and verifier is rejected before anything happens, by install and plan alike; plan lists the
// proof as a step.
func TestProverNeedsRestart(t *testing.T) {
	h := newHost(t, readTestdata(t, "configs/gardener-v2.toml"))
	before := installertest.HashTree(t, h.root)
	o := h.options()
	o.Prover = sandbox.CRI{Socket: h.path(verify.CRISocket)}
	if _, err := installer.Install(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--prove-sandbox needs --restart=systemd") {
		t.Errorf("want the usage error, got %v", err)
	}
	if _, err := planLocked(context.Background(), o, false); err == nil || !strings.Contains(err.Error(), "--prove-sandbox needs --restart=systemd") {
		t.Errorf("plan: want the same usage error as install, got %v", err)
	}
	// Planning restarts nothing and asks containerd nothing: a restarter and verifier that would fail do not matter.
	o.Restarter, o.Verifier = restart.Systemd{Socket: h.path("/nonexistent/dbus")}, verify.CRI{Socket: h.path(verify.CRISocket)}
	p, err := planLocked(context.Background(), o, false)
	if err != nil {
		t.Fatal(err)
	}
	steps := p.Steps()
	if len(steps) == 0 || !strings.HasPrefix(steps[len(steps)-1], "prove: start a gVisor sandbox over CRI") {
		t.Errorf("plan does not end with the proof: %q", steps)
	}
	if !reflect.DeepEqual(before, installertest.HashTree(t, h.root)) {
		t.Error("the node changed")
	}
}

func sandboxCount(t *testing.T, o installer.Options) int {
	t.Helper()
	conn, err := verify.Dial(o.Prover.(sandbox.CRI).Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	list, err := runtimeapi.NewRuntimeServiceClient(conn).ListPodSandbox(context.Background(), &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.GetItems())
}
