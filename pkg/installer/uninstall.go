// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/binaries"
	cc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// planUninstall returns the changes an uninstall makes: our drop-in or runsc tables, runsc.toml, the backup and
// the binaries go; everything else stays.
func (r *Run) planUninstall() (*Plan, error) {
	p := &Plan{binDir: r.host(r.opts.BinDir)}
	if err := r.findForeign(p); err != nil {
		return nil, err
	}
	if err := r.planUnregister(p); err != nil {
		return nil, err
	}
	for _, nodePath := range []string{BackupPath, runscconfig.NodePath} {
		if err := r.planRemoval(p, nodePath); err != nil {
			return nil, err
		}
	}
	bins, err := binaries.UninstallPlan(r.host(r.opts.BinDir))
	if err != nil {
		return nil, err
	}
	for _, a := range bins {
		p.Changes = append(p.Changes, Change{NodePath: r.nodePath(a.Path)})
	}
	if err := r.planReleasesRemoval(p); err != nil {
		return nil, err
	}
	if err := r.planStaleTemps(p); err != nil {
		return nil, err
	}
	p.label, p.labelFirst = r.labelStep(false), true
	r.opts.Logger.Info("planned uninstall", "step", "plan", "changes", len(p.Changes))
	return p, nil
}

// planUnregister adds the changes to containerd's configuration that take runsc out of it: our drop-in goes, and
// config.toml is restored from the backup or loses every runsc table. Uninstall makes them, and so does an install
// whose sandbox proof failed on a node where runsc was registered before (withdraw).
func (r *Run) planUnregister(p *Plan) error {
	if prev, exists, err := hostfs.ReadFileIfExists(r.host(nodecontract.DropInPath)); err != nil {
		return err
	} else if exists {
		p.Changes = append(p.Changes, Change{NodePath: nodecontract.DropInPath, Detail: "drop-in", Containerd: true, Previous: prev})
	}
	// A node without config.toml runs containerd on built-in defaults, which have no runsc: there is nothing to
	// take out of its configuration, and the rest (binaries, runsc.toml) still goes. Install refuses such a node.
	if _, err := os.Lstat(r.host(nodecontract.ContainerdConfigPath)); errors.Is(err, fs.ErrNotExist) {
		r.opts.Logger.Info("no containerd config on the node; nothing to remove from it", "step", "parse-config", "file", nodecontract.ContainerdConfigPath)
		return nil
	}
	doc, err := r.readContainerdConfig()
	if err != nil {
		return err
	}
	if err := r.checkNoForeignDropIn(doc); err != nil {
		return err
	}
	content, detail, err := r.configWithoutRunsc(doc)
	if err != nil {
		return err
	}
	perm, err := r.perm(nodecontract.ContainerdConfigPath, 0o644)
	if err != nil {
		return err
	}
	if !bytes.Equal(content, doc.Raw) {
		p.Changes = append(p.Changes, Change{NodePath: nodecontract.ContainerdConfigPath, Data: content, Perm: perm, Detail: detail, Containerd: true, Previous: doc.Raw})
	}
	return nil
}

// configWithoutRunsc restores the backup when config.toml is exactly what installing onto the backup produces and
// the backup has no runsc under any plugin ID (byte-for-byte the operator's original, comments included);
// otherwise it cuts our block and every runsc table out (also one we adopted or the field's extension wrote: uninstall
// means no runsc on this node).
func (r *Run) configWithoutRunsc(doc *cc.Document) ([]byte, string, error) {
	if backup, exists, err := hostfs.ReadFileIfExists(r.host(BackupPath)); err != nil {
		return nil, "", err
	} else if exists {
		if bdoc, err := cc.Parse(BackupPath, backup); err == nil {
			if e, err := bdoc.AddRunsc(); err == nil && !bdoc.HasAnyRunsc() && bytes.Equal(e.Content, doc.Raw) {
				return backup, "restored from backup", nil
			}
		}
	}
	e, err := doc.RemoveRunsc()
	if err != nil {
		return nil, "", err
	}
	return e.Content, "runsc removed, " + string(e.Mode), nil
}

// checkNoForeignDropIn refuses an uninstall while a file that config.toml imports, other than our drop-in,
// registers runsc: uninstall removes what gvisor-installer or the field's extension wrote, never the operator's own
// files, and without this check it would restart containerd only to find runsc still configured.
func (r *Run) checkNoForeignDropIn(doc *cc.Document) error {
	matches, err := r.importedFiles(doc)
	if err != nil {
		return err
	}
	for _, m := range matches {
		if r.nodePath(m) == nodecontract.DropInPath {
			continue
		}
		data, err := os.ReadFile(m)
		if err != nil {
			return refusal.Wrap(r.nodePath(m), "imported by config.toml but unreadable", "fix or remove the file", err)
		}
		imported, err := cc.Parse(r.nodePath(m), data)
		if err != nil {
			return err
		}
		if imported.HasAnyRunsc() {
			return refusal.New(r.nodePath(m), "registers the runsc runtime too, and uninstall removes only what gvisor-installer (or the field's extension) wrote",
				"remove the runsc tables from that file (it is the node's own configuration), or keep gVisor on this worker pool")
		}
	}
	return nil
}

// uninstall takes the node's lock, removes what Install added and restarts containerd only if its configuration
// changed. With NodeLabel it first (after planning, so a refusal leaves label and node as they were) removes the
// node's readiness label.
func (r *Run) uninstall(ctx context.Context) (Result, error) {
	res := Result{Action: string(ActionUninstall)}
	unlock, err := r.lock(ctx, "uninstall", true)
	if err != nil {
		return res, err
	}
	defer unlock()
	p, err := r.planUninstall()
	if err != nil {
		return res, err
	}
	res.Foreign = p.Foreign
	if err := r.removeNodeLabel(ctx, &res); err != nil {
		return Result{Action: string(ActionUninstall)}, fmt.Errorf("runsc is still registered (nothing on the node changed): "+
			"it is unregistered only after the scheduler stops sending gVisor pods here: %w", err)
	}
	first := p // the first attempt applies the plan made before the label went; a re-plan reads the node again
	replan := func() (*Plan, error) {
		if next := first; next != nil {
			first = nil
			return next, nil
		}
		return r.planUninstall()
	}
	if _, err := r.planAndApply(replan, func(p *Plan) error { return r.apply(ctx, p, &res, verify.NoRunsc) }); err != nil {
		return res, err
	}
	// The bin dir's gvisor-bin/ (flat layout) and gvisor/ are ours; remove them once empty.
	bin := r.host(r.opts.BinDir)
	for _, dir := range []string{filepath.Join(bin, nodecontract.SideDir), filepath.Join(bin, nodecontract.ReleasesDir), filepath.Join(bin, nodecontract.GVisorDir)} {
		if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
			_ = os.Remove(dir)
		}
	}
	return res, nil
}
