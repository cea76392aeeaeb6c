// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package binaries

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// Mode of every installed binary.
const Mode = 0o755

// Action is one change to the node's bin dir.
type Action struct {
	// Path is the absolute path (under the host root).
	Path string
	// Source is the release file to copy to Path; empty means remove Path.
	Source string
	// Sum is Source's verified SHA-512 (hex).
	Sum string
}

func (a Action) String() string {
	if a.Source == "" {
		return "remove " + a.Path
	}
	return "write " + a.Path
}

// Plan returns the actions that bring binDir in step with the release: files whose content or mode differ are
// written, sidecars no longer in the release are removed. Order: sidecars, shim, runsc, then removals; runsc
// last among the writes so that a runsc never starts next to sidecars older than itself for longer than needed.
func Plan(rel *Release, binDir string) ([]Action, error) {
	var writes []Action
	for _, f := range rel.Files {
		dst := filepath.Join(binDir, filepath.FromSlash(f.Name))
		same, err := hostfs.SameFile(dst, f.Size, f.Sum, Mode)
		if err != nil {
			return nil, err
		}
		if !same {
			writes = append(writes, Action{Path: dst, Source: f.Path, Sum: f.Sum})
		}
	}
	sort.SliceStable(writes, func(i, j int) bool { return rank(writes[i].Path, binDir) < rank(writes[j].Path, binDir) })
	stale, err := staleSidecars(rel, binDir)
	if err != nil {
		return nil, err
	}
	return append(writes, stale...), nil
}

// UninstallPlan returns the removals of everything a release installs into binDir, plus gvisor-bin/ itself.
func UninstallPlan(binDir string) ([]Action, error) {
	var out []Action
	side := filepath.Join(binDir, nodecontract.SideDir)
	entries, err := os.ReadDir(side)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("reading %s: %w", side, err)
	}
	for _, e := range entries {
		out = append(out, Action{Path: filepath.Join(side, e.Name())})
	}
	for _, name := range []string{nodecontract.Shim, nodecontract.Runsc} {
		p := filepath.Join(binDir, name)
		if _, err := os.Lstat(p); err == nil {
			out = append(out, Action{Path: p})
		}
	}
	return out, nil
}

func rank(p, binDir string) int {
	switch p {
	case filepath.Join(binDir, nodecontract.Runsc):
		return 2
	case filepath.Join(binDir, nodecontract.Shim):
		return 1
	}
	return 0
}

func staleSidecars(rel *Release, binDir string) ([]Action, error) {
	side := filepath.Join(binDir, nodecontract.SideDir)
	entries, err := hostfs.ReadDirIfExists(side)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", side, err)
	}
	var out []Action
	for _, e := range entries {
		if rel.File(path.Join(nodecontract.SideDir, e.Name())) == nil {
			out = append(out, Action{Path: filepath.Join(side, e.Name())})
		}
	}
	return out, nil
}

// Apply performs the actions: atomic writes (never into a running binary), removals, and removes gvisor-bin/
// when removing our sidecars emptied it.
func Apply(actions []Action, binDir string) error {
	removedSidecar := false
	for _, a := range actions {
		if a.Source == "" {
			removedSidecar = removedSidecar || filepath.Dir(a.Path) == filepath.Join(binDir, nodecontract.SideDir)
			if err := hostfs.Remove(a.Path); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(a.Path), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(a.Path), err)
		}
		if err := hostfs.CopyFileAtomic(a.Source, a.Path, a.Sum, Mode); err != nil {
			return err
		}
	}
	side := filepath.Join(binDir, nodecontract.SideDir)
	if entries, err := os.ReadDir(side); removedSidecar && err == nil && len(entries) == 0 {
		if err := os.Remove(side); err != nil {
			return fmt.Errorf("removing empty %s: %w", side, err)
		}
	}
	return nil
}
