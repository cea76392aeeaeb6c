// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"os"
	"path"
	"slices"
	"sort"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/releases"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// collect removes the release directories the node no longer needs: all but the current release, the last
// proven ones (releases.State.Kept) and every release a running sandbox's bundle names (releases.InUse). It runs
// after a successful proof only, and a directory it cannot remove is logged and tried again by the next run.
func (r *Run) collect(rp *releasePlan, res *Result) {
	log := r.opts.Logger
	dir := r.host(path.Join(r.opts.BinDir, nodecontract.ReleasesDir))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	used, err := releases.InUse(r.host(releases.TaskDir), r.opts.BinDir)
	if err != nil {
		log.Warn("cannot tell which releases running sandboxes use; removing none", "step", "collect", "error", err.Error())
		return
	}
	keep := append([]string{rp.id}, rp.state.Kept()...)
	var kept []string
	for _, e := range entries {
		id := e.Name()
		switch {
		case slices.Contains(keep, id):
		case used[id] > 0:
			kept = append(kept, id)
		default:
			node := path.Join(r.opts.BinDir, nodecontract.ReleaseDir(id))
			if err := os.RemoveAll(r.host(node)); err != nil {
				log.Warn("cannot remove an unused release", "step", "collect", "dir", node, "error", err.Error())
				continue
			}
			res.Changed = append(res.Changed, "remove "+node+" (release no sandbox uses)")
			log.Info("removed an unused release", "step", "collect", "dir", node)
		}
	}
	if len(kept) > 0 {
		sort.Strings(kept)
		log.Info("kept older releases that running sandboxes use", "step", "collect", "releases", kept)
	}
}
