// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestInstallRefusesContainerd16: on Debian's real containerd 1.6 (which cannot start the gVisor shim we ship)
// install refuses before touching the node, naming the node's containerd version, the minimum and the fix.
func TestInstallRefusesContainerd16(t *testing.T) {
	c := installertest.Release(t, "1.6")
	h := newHost(t, readTestdata(t, "configs/debian-1.6-packaged.toml"))
	h.write(t, binDir+"/runsc", []byte("an older runsc")) // refusals leave a node that has gVisor alone too
	d := installertest.StartDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	r := &installertest.Restarter{D: d}
	o := h.options()
	o.Restarter, o.Verifier = r, verify.CRI{Socket: d.Socket}
	before := installertest.HashTree(t, h.root)

	res, err := installer.Install(context.Background(), o)
	if !refusal.Is(err) {
		t.Fatalf("want a refusal, got %v (%s)", err, res.Summary())
	}
	for _, want := range []string{"refusing containerd 1.6.20", "needs containerd 1.7 or later", "fix: upgrade the node's containerd", "remove gvisor from the worker pool"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal does not say %q: %v", want, err)
		}
	}
	if got := res.FailedSummary(); !strings.Contains(got, "containerd 1.6.20") || !strings.Contains(got, "minimum containerd 1.7") {
		t.Errorf("failed summary %q names neither the version nor the minimum", got)
	}
	if !reflect.DeepEqual(before, installertest.HashTree(t, h.root)) {
		t.Error("the refused install changed the node")
	}
	if r.Restarts != 0 {
		t.Errorf("containerd restarted %d times", r.Restarts)
	}
	if !strings.Contains(h.logs.String(), "step=containerd-version") {
		t.Errorf("no containerd-version step in the log:\n%s", h.logs)
	}
}

// TestVersionCheckedAfterRepair: a containerd that does not answer at the start (here Debian's 1.6, down because
// the field's extension wrote its runsc table under plugins.cri) is no reason to refuse: the installer repairs the
// config, and once containerd answers it checks the version, finds 1.6, gives the same message and restores the
// previous config (the failure is exit 1, not a refusal: the node was touched).
func TestVersionCheckedAfterRepair(t *testing.T) {
	c := installertest.Release(t, "1.6")
	oldState := readTestdata(t, "oldextension/early-default-1.6.toml")
	h := newHost(t, oldState)
	d := installertest.NewDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	if err := d.Start(context.Background()); err == nil {
		t.Fatal("containerd 1.6 started on the wrong plugin key: the premise is gone")
	}
	r := &installertest.Restarter{D: d}
	o := h.options()
	o.Restarter, o.Verifier, o.VerifyTimeout = r, verify.CRI{Socket: d.Socket}, 5e9

	res, err := installer.Install(context.Background(), o)
	if err == nil || refusal.Is(err) {
		t.Fatalf("want a failure (exit 1), got %v (%s)", err, res.Summary())
	}
	for _, want := range []string{"refusing containerd 1.6.20", "needs containerd 1.7 or later", "fix: upgrade the node's containerd"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
	if !res.RolledBack || r.Restarts != 2 {
		t.Errorf("want the repair's restart and the rollback's, got %s (%d restart attempts)", res.FailedSummary(), r.Restarts)
	}
	if got := h.read(t, nodecontract.ContainerdConfigPath); string(got) != string(oldState) {
		t.Errorf("config.toml is not the one from before the run:\n%s", got)
	}
	if !strings.Contains(h.logs.String(), "containerd does not answer over CRI; repairing first") {
		t.Errorf("the log does not say why the version was not checked first:\n%s", h.logs)
	}
	t.Logf("%s: %v", res.FailedSummary(), err)
}
