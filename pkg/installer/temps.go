// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// tempPattern matches the temporary files hostfs writes beside a target before renaming them over it.
const tempPattern = ".*.gvisor-installer-*"

// planStaleTemps adds the removal of temporary files that an interrupted run (pod killed, node rebooted mid-copy)
// left in the directories the installer writes to. A runsc copy is ~80 MB, so left alone they pile up on the
// node with every interrupted run; uninstall must not leave them either.
//
// Only temporaries whose writer is gone are removed: Install and Uninstall plan while holding the node's exclusive
// lock (lock.go), and every writer of these files holds that lock until it has renamed or removed them, so a
// temporary file that exists while we hold the lock belongs to a run that died. (plan holds the lock shared: it
// lists the same files and removes nothing.) An installer older than the lock does not take it; during the one
// rollout from such a version the DaemonSet stops the old pod before it starts the new one on a node.
func (r *Run) planStaleTemps(p *Plan) error {
	dirs := []string{r.opts.BinDir, filepath.Join(r.opts.BinDir, nodecontract.SideDir), filepath.Dir(nodecontract.ContainerdConfigPath), filepath.Dir(nodecontract.DropInPath),
		filepath.Join(r.opts.BinDir, nodecontract.GVisorDir)}
	// Every release directory, and its gvisor-bin/ (package releases).
	rels, err := filepath.Glob(r.host(filepath.Join(r.opts.BinDir, nodecontract.ReleasesDir, "*")))
	if err != nil {
		return fmt.Errorf("listing the releases in %s: %w", r.opts.BinDir, err)
	}
	for _, rel := range rels {
		dirs = append(dirs, r.nodePath(rel), filepath.Join(r.nodePath(rel), nodecontract.SideDir))
	}
	var found []string
	for _, dir := range dirs {
		matches, err := filepath.Glob(filepath.Join(r.host(dir), tempPattern))
		if err != nil {
			return fmt.Errorf("looking for temporary files in %s: %w", dir, err)
		}
		found = append(found, matches...)
	}
	sort.Strings(found)
	for _, m := range found {
		p.Changes = append(p.Changes, Change{NodePath: r.nodePath(m), Detail: "temporary file of an interrupted run"})
	}
	return nil
}

// writeUndoable makes c's write undoable in j (hostfs.Journal: the replaced file kept as a hard link beside it,
// missing directories recorded), then writes it. The kept links match tempPattern: a run killed before it
// committed or undid them leaves them to the next run's planStaleTemps.
func (r *Run) writeUndoable(j *hostfs.Journal, c Change) error {
	if err := j.Prepare(r.host(c.NodePath)); err != nil {
		return err
	}
	return r.write(c)
}

// undo takes back this run's writes after cause made one fail, so that the failed run leaves the node exactly as
// it found it (a full disk typically fails the third of five files: without this the node kept a new shim next
// to the old runsc, or config.toml's backup without the edit it backs up). containerd was not restarted yet, so
// it runs on the configuration that is on disk again.
func (r *Run) undo(j *hostfs.Journal, res *Result, cause error) error {
	if err := j.Undo(); err != nil {
		return fmt.Errorf("%w; undoing this run's earlier changes failed too, so the node keeps them (the next run completes them): %w", cause, err)
	}
	if len(res.Changed) > 0 {
		r.opts.Logger.Info("undone", "step", "undo", "changes", strings.Join(res.Changed, ", "))
	}
	res.Changed = nil
	return fmt.Errorf("%w (nothing on the node changed: this run undid its earlier changes)", cause)
}

// commit drops what j kept for undoing; a link it cannot remove only costs space until the next run removes it.
func (r *Run) commit(j *hostfs.Journal) {
	if err := j.Commit(); err != nil {
		r.opts.Logger.Warn("cannot remove a file kept for undoing; the next run removes it", "step", "write", "error", err.Error())
	}
}
