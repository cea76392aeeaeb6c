// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"fmt"
	"path"
	"sort"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/releases"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// planRemoval adds the removal of nodePath if it exists, a link (runsc.toml in the side-by-side layout) or a file,
// keeping what it was for the rollback.
func (r *Run) planRemoval(p *Plan, nodePath string) error {
	target, isLink, err := hostfs.ReadlinkIfExists(r.host(nodePath))
	if err != nil {
		return err
	}
	if isLink {
		p.Changes = append(p.Changes, Change{NodePath: nodePath, PreviousLink: target})
		return nil
	}
	prev, exists, err := hostfs.ReadFileIfExists(r.host(nodePath))
	if err != nil {
		return err
	}
	if exists {
		p.Changes = append(p.Changes, Change{NodePath: nodePath, Previous: prev})
	}
	return nil
}

// planReleasesRemoval adds the removal of the side-by-side layout (package releases): the current link, the state
// and every release directory no running sandbox's bundle names. A release that one still names stays, so that its
// sandbox can still be stopped and deleted (the summary lists it; a later install or uninstall removes it).
func (r *Run) planReleasesRemoval(p *Plan) error {
	bin := r.opts.BinDir
	for _, name := range []string{nodecontract.CurrentLink, nodecontract.StateFile} {
		if err := r.planRemoval(p, path.Join(bin, name)); err != nil {
			return err
		}
	}
	entries, err := hostfs.ReadDirIfExists(r.host(path.Join(bin, nodecontract.ReleasesDir)))
	if err != nil {
		return fmt.Errorf("reading %s: %w", path.Join(bin, nodecontract.ReleasesDir), err)
	}
	used, err := releases.InUse(r.host(releases.TaskDir), bin)
	if err != nil {
		return err
	}
	var kept []string
	for _, e := range entries {
		if used[e.Name()] > 0 {
			kept = append(kept, e.Name())
			continue
		}
		p.Changes = append(p.Changes, Change{NodePath: path.Join(bin, nodecontract.ReleaseDir(e.Name())), Tree: true, Detail: "release"})
	}
	if len(kept) > 0 {
		sort.Strings(kept)
		p.KeptReleases = kept
		r.opts.Logger.Warn("releases kept: running gVisor sandboxes still use them", "step", "plan", "releases", kept)
	}
	return nil
}
