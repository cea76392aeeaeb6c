// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"context"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// proof is an injected sandbox proof: fails (nil: never) decides its error from the release new sandboxes get;
// calls counts the proofs.
type proof struct {
	fails func(current string) error
	h     *host
	calls int
}

func (p *proof) Prove(context.Context) (sandbox.Proof, error) {
	p.calls++
	if p.fails == nil {
		return sandbox.Proof{Handler: "runsc"}, nil
	}
	current, _ := os.Readlink(p.h.path(path.Join(binDir, nodecontract.CurrentLink)))
	return sandbox.Proof{Handler: "runsc"}, p.fails(current)
}

// layout is what a node holds of the release layout: every link's target and every file's content under the bin
// dir's gvisor/releases, and runsc.toml as containerd reads it.
func layout(t *testing.T, h *host) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, link := range []string{runscconfig.NodePath, path.Join(binDir, nodecontract.Runsc), path.Join(binDir, nodecontract.Shim), path.Join(binDir, nodecontract.CurrentLink)} {
		target, err := os.Readlink(h.path(link))
		if err != nil {
			t.Fatalf("%s: %v", link, err)
		}
		got[link+" ->"] = target
	}
	root := h.path(path.Join(binDir, nodecontract.ReleasesDir))
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		got[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got["runsc.toml as read"] = string(h.read(t, runscconfig.NodePath))
	return got
}

// TestActivateLeavesTheInstallsLayout: the OperatingSystemConfig mode's activation puts the same release with the
// same runsc flags into exactly the files, links and runsc.toml bytes that install leaves in the DaemonSet mode,
// and never touches containerd's configuration.
func TestActivateLeavesTheInstallsLayout(t *testing.T) {
	config := readTestdata(t, "configs/default-2.4.toml")
	flags := []byte("[runsc_config]\n  net-raw = \"true\"\n")

	ds := newHost(t, config)
	o := ds.options()
	o.RunscConfig = filepath.Join(t.TempDir(), "runsc.toml")
	writeFile(t, o.RunscConfig, flags)
	if _, err := installer.Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}

	osc := newHost(t, config)
	o = osc.options()
	o.Source = osc.source
	o.RunscConfig = osc.path(path.Join(binDir, nodecontract.StagedFlags))
	osc.write(t, path.Join(binDir, nodecontract.StagedFlags), flags)
	p := &proof{}
	o.Prover = p
	res, err := installer.Activate(context.Background(), o)
	if err != nil || p.calls != 1 || res.Restarts != 0 {
		t.Fatalf("activate: %v after %d proofs and %d restarts; want one proof, no restart", err, p.calls, res.Restarts)
	}
	want, got := layout(t, ds), layout(t, osc)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: activate left %q, install %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("activate left %d layout entries, install %d: %v", len(got), len(want), got)
	}
	if string(osc.read(t, nodecontract.ContainerdConfigPath)) != string(config) || osc.exists(nodecontract.DropInPath) || osc.exists(installer.BackupPath) {
		t.Error("activate changed containerd's configuration: it is gardener-node-agent's")
	}
	if !strings.Contains(string(osc.read(t, path.Join(binDir, nodecontract.StateFile))), `"good"`) {
		t.Errorf("the proven release is not recorded: %s", osc.read(t, path.Join(binDir, nodecontract.StateFile)))
	}
}

// TestActivateFallsBackToTheLastProvenRelease: a staged release whose proof fails puts the node back on the last
// proven one (gVisor pods keep working), keeps runsc registered and remembers the failure, so the next run (the
// proof unit's timer) does not switch to the failing release again before its back-off.
func TestActivateFallsBackToTheLastProvenRelease(t *testing.T) {
	config := readTestdata(t, "configs/default-2.4.toml")
	h := newHost(t, config)
	p := &proof{}
	o := h.options()
	o.Prover = p
	if _, err := installer.Activate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	first, err := os.Readlink(h.path(path.Join(binDir, nodecontract.CurrentLink)))
	if err != nil {
		t.Fatal(err)
	}

	stubRelease(t, h.source, "v2")
	p.h, p.fails = h, func(current string) error {
		if current != first {
			return errors.New("waiting for sandbox to start: EOF")
		}
		return nil
	}
	res, err := installer.Activate(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "failed its proof") || !strings.Contains(res.Verdict, "running release") {
		t.Fatalf("failing release: %v, verdict %q; want the failure and the release the node runs", err, res.Verdict)
	}
	if now, _ := os.Readlink(h.path(path.Join(binDir, nodecontract.CurrentLink))); now != first {
		t.Errorf("current -> %q after the failed proof, want the proven %q", now, first)
	}
	if string(h.read(t, nodecontract.ContainerdConfigPath)) != string(config) || res.Unregistered {
		t.Error("a failed activation changed containerd's configuration: runsc stays registered by gardener-node-agent")
	}
	calls := p.calls
	if _, err := installer.Activate(context.Background(), o); err == nil || p.calls != calls {
		t.Errorf("the failed release was tried again at once (%v, %d proofs): want it refused until its back-off passed", err, p.calls-calls)
	}
}

// TestActivateTurnsNVProxyOnForTheNodesDriver: on a GPU node with a supported driver the release's runsc.toml gets
// nvproxy, as install's does; the staged flags (the pool's, the same on every node) never decide it.
func TestActivateTurnsNVProxyOnForTheNodesDriver(t *testing.T) {
	h := newHost(t, readTestdata(t, "configs/default-2.4.toml"))
	h.write(t, gpu.ControlDevice, nil)
	o := h.options()
	o.Prover = &proof{}
	o.GPU = &preflight{v: gpu.Verdict{Status: nodecontract.GPUSupported, Driver: "580.159.04", GVisor: "v1"}}
	o.RunscConfig = h.path(path.Join(binDir, nodecontract.StagedFlags))
	h.write(t, path.Join(binDir, nodecontract.StagedFlags), []byte("[runsc_config]\n  nvproxy = \"false\"\n"))
	res, err := installer.Activate(context.Background(), o)
	if err != nil || !strings.Contains(string(h.read(t, runscconfig.NodePath)), "  nvproxy = \"true\"\n") || res.GPU == nil || !res.GPU.NVProxy() {
		t.Errorf("supported driver: %v, runsc.toml %q; want nvproxy on", err, h.read(t, runscconfig.NodePath))
	}
}

// TestDeactivateRemovesTheLayout: deactivate removes the links, the releases, the record and what node-agent
// staged, leaves containerd's configuration and a file that is not ours alone, and does nothing on a node without
// the layout.
func TestDeactivateRemovesTheLayout(t *testing.T) {
	config := readTestdata(t, "configs/default-2.4.toml")
	h := newHost(t, config)
	o := h.options()
	o.Prover = &proof{}
	h.write(t, path.Join(binDir, nodecontract.StagedFlags), []byte("[runsc_config]\n"))
	if _, err := installer.Activate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	h.write(t, path.Join(binDir, "gvisor-installer"), []byte("node-agent's"))
	if _, err := installer.Deactivate(context.Background(), installer.Options{HostRoot: h.root, BinDir: binDir}); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{runscconfig.NodePath, path.Join(binDir, nodecontract.Runsc), path.Join(binDir, nodecontract.Shim), path.Join(binDir, nodecontract.GVisorDir)} {
		if h.exists(gone) {
			t.Errorf("%s is still there", gone)
		}
	}
	if !h.exists(path.Join(binDir, "gvisor-installer")) || string(h.read(t, nodecontract.ContainerdConfigPath)) != string(config) {
		t.Error("deactivate touched what is not the release layout's")
	}

	h.write(t, path.Join(binDir, nodecontract.Runsc), []byte("another extension's runsc"))
	res, err := installer.Deactivate(context.Background(), installer.Options{HostRoot: h.root, BinDir: binDir})
	if err != nil || len(res.Changed) != 0 || !h.exists(path.Join(binDir, nodecontract.Runsc)) {
		t.Errorf("no layout: %v, changed %v; want nothing removed", err, res.Changed)
	}
}
