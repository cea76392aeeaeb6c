// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/binaries"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/releases"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// releasePlan is the side-by-side layout's part of an install (package releases): which release the run puts in
// place, which one the node ran before, and what the node remembers.
type releasePlan struct {
	// id is the release this run installs; config the SHA-256 of its runsc.toml.
	id, config string
	// previous is the release the current link pointed to before this run ("" : none, or a target we did not write).
	previous string
	// switches is true when this run moves the current link from previous to id.
	switches bool
	// configChange is the in-place rewrite of id's runsc.toml when id already is current (new runsc flags); nil
	// without one. Its Previous content is what a failed proof restores.
	configChange *Change
	// adopted is the id of a flat-layout release this run moved into the layout ("" : none).
	adopted string
	// state is what the node remembered before this run (with an adopted release counted as proven).
	state releases.State
	// record is the record a successful proof leaves, staged before the run changes the node (record.go).
	record *stagedRecord
}

// planRelease adds the changes that put rel, with the runsc flags flags, in place as the release new sandboxes
// get: its files in a directory of its own (written only when different), its runsc.toml, the adoption of a
// flat-layout release the node ran before, the names on containerd's PATH and the runsc handler's ConfigPath as
// links through current, and last the switch of current itself.
func (r *Run) planRelease(p *Plan, rel *binaries.Release, flags []byte) error {
	bin := r.opts.BinDir
	id := releases.ID(rel)
	toml := runscconfig.ForRelease(bin, id, flags)
	sum := sha256.Sum256(toml)
	rp := &releasePlan{id: id, config: hex.EncodeToString(sum[:])}
	p.release = rp
	state, err := releases.LoadState(r.host(path.Join(bin, nodecontract.StateFile)))
	if err != nil {
		return err
	}
	rp.state = state
	target, isLink, err := hostfs.ReadlinkIfExists(r.host(path.Join(bin, nodecontract.CurrentLink)))
	if err != nil {
		return err
	}
	if isLink {
		rp.previous = nodecontract.IDOfTarget(target)
	} else if err := r.planAdoption(p, rp); err != nil {
		return err
	}
	if err := r.planReleaseFiles(p, rel, id); err != nil {
		return err
	}
	tomlChange := Change{NodePath: runscconfig.ReleasePath(bin, id), Data: toml, Perm: 0o644,
		Detail: "binary_name and runsc flags of release " + id + "; read at every sandbox start, no restart"}
	n := len(p.Changes)
	if err := r.addIfDifferent(p, tomlChange); err != nil {
		return err
	}
	if len(p.Changes) > n && rp.previous == id {
		rp.configChange = &p.Changes[n]
	}
	if err := r.planPathLinks(p); err != nil {
		return err
	}
	if rp.previous != id {
		rp.switches = true
		p.Changes = append(p.Changes, Change{NodePath: path.Join(bin, nodecontract.CurrentLink), Link: nodecontract.CurrentTarget(id), PreviousLink: target,
			Detail: switchDetail(rp.previous), Switch: true})
	}
	return r.planFlatLeftovers(p)
}

func switchDetail(previous string) string {
	if previous == "" {
		return "the release new gVisor sandboxes get"
	}
	return "switch from " + previous + "; its sandboxes keep their release"
}

// planReleaseFiles adds the writes of rel's files into its own directory; a directory that already holds them
// (the release is on the node) gets none.
func (r *Run) planReleaseFiles(p *Plan, rel *binaries.Release, id string) error {
	dir := r.host(path.Join(r.opts.BinDir, nodecontract.ReleaseDir(id)))
	actions, err := binaries.Plan(rel, dir)
	if err != nil {
		return err
	}
	for _, a := range actions {
		p.Changes = append(p.Changes, Change{NodePath: r.nodePath(a.Path), Source: a.Source, Sum: a.Sum, Perm: binaries.Mode, Detail: "release " + id})
	}
	return nil
}

// planPathLinks adds the links that stay the same across releases: runsc and the shim on containerd's PATH, and
// the runsc handler's ConfigPath, each through current. A regular file there (the flat layout) is replaced by
// rename: a process that runs it keeps its inode.
func (r *Run) planPathLinks(p *Plan) error {
	bin := r.opts.BinDir
	links := []Change{
		{NodePath: path.Join(bin, nodecontract.Shim), Link: nodecontract.PathLink(nodecontract.Shim), Detail: "found by containerd on PATH"},
		{NodePath: path.Join(bin, nodecontract.Runsc), Link: nodecontract.PathLink(nodecontract.Runsc), Detail: "for operators and tools"},
		// Absolute: /etc/containerd is not under the bin dir.
		{NodePath: runscconfig.NodePath, Link: runscconfig.LinkTarget(bin), Detail: "the runsc handler's ConfigPath"},
	}
	for _, c := range links {
		if err := r.addLinkIfDifferent(p, c); err != nil {
			return err
		}
	}
	return nil
}

// addLinkIfDifferent adds c unless NodePath already is a link to c.Link; a regular file there is kept as
// Previous for the rollback of containerd's configuration files (runsc.toml is small; binaries are not restored).
func (r *Run) addLinkIfDifferent(p *Plan, c Change) error {
	target, isLink, err := hostfs.ReadlinkIfExists(r.host(c.NodePath))
	if err != nil {
		return err
	}
	if isLink && target == c.Link {
		return nil
	}
	c.PreviousLink = target
	p.Changes = append(p.Changes, c)
	return nil
}

// planAdoption moves a release of the flat layout (runsc and the shim as regular files in the bin dir, as older
// installers and the field's extension left them) into a release directory by hard links, with a runsc.toml
// that keeps the node's runsc flags, and points current at it: that is the release the node ran, and what a
// failed proof of the new release falls back to. A node without one adopts nothing.
func (r *Run) planAdoption(p *Plan, rp *releasePlan) error {
	bin := r.opts.BinDir
	files, err := r.flatFiles()
	if err != nil || files == nil {
		return err
	}
	sum, _, err := hostfs.HashFile(files[nodecontract.Runsc])
	if err != nil {
		return fmt.Errorf("reading the flat layout's runsc to adopt it: %w", err)
	}
	id := releases.LegacyID(sum)
	dir := path.Join(bin, nodecontract.ReleaseDir(id))
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p.Changes = append(p.Changes, Change{NodePath: path.Join(dir, name), Adopt: files[name], Detail: "the release the node ran, adopted without a copy"})
	}
	flags, _, err := hostfs.ReadFileIfExists(r.host(runscconfig.NodePath))
	if err != nil {
		return err
	}
	if flags == nil {
		flags = []byte("[runsc_config]\n")
	}
	p.Changes = append(p.Changes,
		Change{NodePath: runscconfig.ReleasePath(bin, id), Data: runscconfig.ForRelease(bin, id, flags), Perm: 0o644, Detail: "the node's runsc flags, kept"},
		Change{NodePath: path.Join(bin, nodecontract.CurrentLink), Link: nodecontract.CurrentTarget(id), Detail: "the adopted release, until the new one is proven"})
	rp.previous, rp.adopted = id, id
	rp.state.Proven(releases.Attempt{Release: id})
	return nil
}

// flatFiles returns the host paths of a flat layout's files by their release names (runsc, the shim, gvisor-bin/*),
// nil when the bin dir has no regular runsc and shim.
func (r *Run) flatFiles() (map[string]string, error) {
	bin := r.host(r.opts.BinDir)
	files := map[string]string{}
	for _, name := range []string{nodecontract.Runsc, nodecontract.Shim} {
		st, err := os.Lstat(filepath.Join(bin, name))
		if err != nil || !st.Mode().IsRegular() {
			return nil, nil //nolint:nilerr // no flat layout to adopt
		}
		files[name] = filepath.Join(bin, name)
	}
	side, err := hostfs.ReadDirIfExists(filepath.Join(bin, nodecontract.SideDir))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(r.opts.BinDir, nodecontract.SideDir), err)
	}
	for _, e := range side {
		if e.Type().IsRegular() {
			files[path.Join(nodecontract.SideDir, e.Name())] = filepath.Join(bin, nodecontract.SideDir, e.Name())
		}
	}
	return files, nil
}

// planFlatLeftovers removes the flat layout's gvisor-bin/ once the links are in place: runsc finds the helpers
// next to its resolved path, in its release directory.
func (r *Run) planFlatLeftovers(p *Plan) error {
	side := path.Join(r.opts.BinDir, nodecontract.SideDir)
	entries, err := hostfs.ReadDirIfExists(r.host(side))
	if err != nil {
		return fmt.Errorf("reading %s: %w", side, err)
	}
	for _, e := range entries {
		p.Changes = append(p.Changes, Change{NodePath: path.Join(side, e.Name()), Detail: "flat layout; the release directory has it"})
	}
	return nil
}
