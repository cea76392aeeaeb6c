// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/releases"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// stagedRecord is the node's release record (nodecontract.StateFile) as a successful proof of this run will leave it,
// written beside the record before the run changes anything else (hostfs.Stage). A successful install puts it in
// place with a rename, which needs no room on the disk: an install either leaves its record or fails before it
// touched the node. Without it, a disk with room for the binaries but not the record gave a success that the next
// release could not fall back from.
type stagedRecord struct {
	state  releases.State
	staged *hostfs.Staged
	// dirs are the directories staging created (a fresh node has no gvisor/ yet), removed again on Discard.
	dirs []string
}

// stageRecord stages the record a successful proof of p's release leaves; nothing when that is the record on the
// node already. A disk without room for it refuses the install, nothing else written.
func (r *Run) stageRecord(p *Plan) error {
	rp := p.release
	if rp == nil {
		return nil
	}
	next := releases.State{Good: slices.Clone(rp.state.Good), Failed: slices.Clone(rp.state.Failed)}
	next.Proven(releases.Attempt{Release: rp.id})
	file := r.host(path.Join(r.opts.BinDir, nodecontract.StateFile))
	if old, err := releases.LoadState(file); err == nil && equalState(old, next) {
		return nil
	}
	data, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", nodecontract.StateFile, err)
	}
	dirs, err := hostfs.CreateDirs(filepath.Dir(file))
	var staged *hostfs.Staged
	if err == nil {
		staged, err = hostfs.Stage(file, append(data, '\n'), 0o644)
	}
	if err != nil {
		if rerr := hostfs.RemoveCreatedDirs(dirs); rerr != nil {
			err = fmt.Errorf("%w; %v", err, rerr)
		}
		return fmt.Errorf("%w (nothing on the node changed)", refusal.Wrap(path.Join(r.opts.BinDir, nodecontract.StateFile),
			"no room for the record of the release this install proves (what a later release falls back to)", "free space on the node's disk", err))
	}
	rp.record = &stagedRecord{state: next, staged: staged, dirs: dirs}
	return nil
}

// discardRecord drops a staged record (the run failed, or it records something else).
func (r *Run) discardRecord(rp *releasePlan) {
	if rp == nil || rp.record == nil {
		return
	}
	err := rp.record.staged.Discard()
	if err == nil {
		err = hostfs.RemoveCreatedDirs(rp.record.dirs)
	}
	if err != nil {
		r.opts.Logger.Warn("cannot remove the staged release record; the next run removes it", "step", "state", "error", err.Error())
	}
	rp.record = nil
}

// commitRecord puts the staged record in place when it is what the node must remember now (state), else writes
// state as before.
func (r *Run) commitRecord(rp *releasePlan) error {
	if rp.record == nil || !equalState(rp.record.state, rp.state) {
		r.discardRecord(rp)
		r.saveState(rp)
		return nil
	}
	err := rp.record.staged.Commit()
	rp.record = nil
	if err != nil {
		return fmt.Errorf("recording the proven release in %s: %w", nodecontract.StateFile, err)
	}
	return nil
}
