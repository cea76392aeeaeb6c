// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"context"
	"os"
	"path"
	"path/filepath"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// The OperatingSystemConfig mode's side of the node (docs/delivery-modes.md). gardener-node-agent writes the
// release, the pool's runsc flags and the controller's sums under nodecontract.StagedDir and registers runsc in
// containerd's configuration; activate puts the release in the same layout, with the same runsc.toml, as install
// does in the DaemonSet mode (planLayout), so that both modes leave the same files on a node, and sandboxes keep the
// release they started with across upgrades. containerd's configuration, its restarts and the readiness label are
// node-agent's and the mode's: activate and deactivate never touch them.

// activate takes the node's lock, judges a GPU node's driver, puts the staged release in the layout, proves it
// (Options.Prover) and records the outcome. A failed proof puts the node back on the last proven release
// (proofFailed); runsc stays registered either way.
func (r *Run) activate(ctx context.Context) (Result, error) {
	res := Result{Action: string(ActionActivate)}
	driver := r.waitForDriver(ctx)
	unlock, err := r.lock(ctx, string(ActionActivate), true)
	if err != nil {
		return res, err
	}
	defer unlock()
	r.checkGPU(ctx, driver, true, &res)
	p, err := r.planAndApply(r.planActivate, r.applyRelease(ctx, &res))
	if err != nil {
		return res, err
	}
	return res, r.proveRelease(ctx, p, &res)
}

// planActivate is planInstall without containerd's configuration: the release layout's changes only.
func (r *Run) planActivate() (*Plan, error) {
	rel, runscData, err := r.loadInputs()
	if err != nil {
		return nil, err
	}
	p, err := r.planLayout(rel, runscData)
	if err != nil {
		return nil, err
	}
	p.proof = r.proofStep()
	return p, nil
}

// deactivate takes the node's lock and removes the release layout (planDeactivate), keeping the releases running
// sandboxes still use, as uninstall does.
func (r *Run) deactivate(ctx context.Context) (Result, error) {
	res := Result{Action: string(ActionDeactivate)}
	unlock, err := r.lock(ctx, string(ActionDeactivate), true)
	if err != nil {
		return res, err
	}
	defer unlock()
	if _, err := r.planAndApply(r.planDeactivate, func(p *Plan) error { return r.apply(ctx, p, &res, verify.NoRunsc) }); err != nil {
		return res, err
	}
	r.removeEmptyLayoutDirs()
	return res, nil
}

// planDeactivate returns the removal of the release layout: the links install made (each only while it still
// points into the layout: another writer's file there is not ours), the current link, the record, every release
// no running sandbox uses, and what node-agent staged (it deletes those files itself afterwards, but not their
// directories).
func (r *Run) planDeactivate() (*Plan, error) {
	p := &Plan{binDir: r.host(r.opts.BinDir)}
	if err := r.findForeign(p); err != nil {
		return nil, err
	}
	bin := r.opts.BinDir
	links := map[string]string{
		path.Join(bin, nodecontract.Shim):  nodecontract.PathLink(nodecontract.Shim),
		path.Join(bin, nodecontract.Runsc): nodecontract.PathLink(nodecontract.Runsc),
		runscconfig.NodePath:               runscconfig.LinkTarget(bin),
	}
	for _, node := range []string{path.Join(bin, nodecontract.Shim), path.Join(bin, nodecontract.Runsc), runscconfig.NodePath} {
		target, isLink, err := hostfs.ReadlinkIfExists(r.host(node))
		if err != nil {
			return nil, err
		}
		if isLink && target == links[node] {
			p.Changes = append(p.Changes, Change{NodePath: node, PreviousLink: target})
		}
	}
	if err := r.planReleasesRemoval(p); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(r.host(path.Join(bin, nodecontract.StagedDir))); err == nil {
		p.Changes = append(p.Changes, Change{NodePath: path.Join(bin, nodecontract.StagedDir), Tree: true, Detail: "what gardener-node-agent staged"})
	}
	if err := r.planStaleTemps(p); err != nil {
		return nil, err
	}
	r.opts.Logger.Info("planned deactivation", "step", "plan", "changes", len(p.Changes))
	return p, nil
}

// removeEmptyLayoutDirs removes gvisor/releases and gvisor/ once nothing is left in them.
func (r *Run) removeEmptyLayoutDirs() {
	bin := r.host(r.opts.BinDir)
	for _, dir := range []string{filepath.Join(bin, nodecontract.ReleasesDir), filepath.Join(bin, nodecontract.GVisorDir)} {
		if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
			_ = os.Remove(dir)
		}
	}
}
