// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/binaries"
	cc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdconfig"
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
	dirs := []string{r.opts.BinDir, filepath.Join(r.opts.BinDir, binaries.SideDir), filepath.Dir(cc.ConfigPath), filepath.Dir(cc.DropInPath)}
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
