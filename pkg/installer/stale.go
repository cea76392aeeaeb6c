// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// planAttempts bounds how often a run plans again when containerd's configuration changed between its plan and its
// write: gardener-node-agent rewrites config.toml at every OperatingSystemConfig reconcile, so a second writer
// meeting a run is expected now and then, but one that rewrites it faster than a run applies is a fault to report.
const planAttempts = 3

// errChangedSincePlan marks a containerd configuration file that no longer holds what the run's plan read.
var errChangedSincePlan = errors.New("changed since this run read it")

// unchangedSincePlan checks, right before c is written, that a containerd configuration file still holds what the
// plan read (c.Previous): writing the plan's content over another writer's newer bytes would silently lose them.
func (r *Run) unchangedSincePlan(c Change) error {
	if !c.Containerd {
		return nil
	}
	data, _, err := hostfs.ReadFileIfExists(r.host(c.NodePath))
	if err != nil {
		return err
	}
	if !bytes.Equal(data, c.Previous) {
		return fmt.Errorf("%s %w (another writer, such as gardener-node-agent, changed it meanwhile)", c.NodePath, errChangedSincePlan)
	}
	return nil
}

// stillOurs: c's file holds what this run wrote (absent for a removal), so that a rollback may write the plan's
// previous content back; a newer writer's bytes are left alone. Only config.toml has other writers (gardener-node-agent
// owns it on Gardener's nodes); the drop-in is the installer's own, and a rollback takes back whatever it holds.
func (r *Run) stillOurs(c Change) (bool, error) {
	if c.NodePath != nodecontract.ContainerdConfigPath {
		return true, nil
	}
	data, exists, err := hostfs.ReadFileIfExists(r.host(c.NodePath))
	if err != nil {
		return false, err
	}
	if c.removes() {
		return !exists, nil
	}
	return exists && bytes.Equal(data, c.Data), nil
}

// planAndApply plans with plan and applies the result, planning again from what the node holds now when a
// containerd configuration file changed between the two (at most planAttempts times): the apply that noticed
// undid its own writes first, so each attempt starts from the node as another writer left it.
func (r *Run) planAndApply(plan func() (*Plan, error), apply func(*Plan) error) (*Plan, error) {
	for attempt := 1; ; attempt++ {
		p, err := plan()
		if err != nil {
			return nil, err
		}
		err = apply(p)
		if err == nil || !errors.Is(err, errChangedSincePlan) || attempt == planAttempts {
			return p, err
		}
		r.opts.Logger.Warn("containerd's configuration changed while this run wrote it; planning again", "step", "plan", "attempt", attempt, "error", err.Error())
	}
}
