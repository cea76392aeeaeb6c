// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// Result is what a run did.
type Result struct {
	// Action is "install" or "uninstall".
	Action string
	// Changed lists the node paths written or removed, in order.
	Changed []string
	// Restarts counts successful containerd restarts (a rollback adds one); a restart the restarter reports as
	// failed (e.g. systemd's job result "failed") is not counted.
	Restarts int
	// RolledBack is true when containerd's previous configuration was restored.
	RolledBack bool
	// Unregistered is true when runsc, registered before this run, was unregistered because gVisor cannot work
	// on the node (see withdraw).
	Unregistered bool
	// Containerd is the CRI runtime's name and version as CRI reported them (e.g. "containerd 2.4.2"); empty when
	// the run did not ask (--restart=none) or containerd never answered.
	Containerd string
	// Sandbox is the successful sandbox proof (Options.Prover); nil when none ran or it failed.
	Sandbox *sandbox.Proof
	// Verdict says in the summary's words whether gVisor works here: the sandbox proof's outcome, or why
	// containerd's version is not supported; empty: neither ran.
	Verdict string
	// Label says what happened to the node's readiness label (--label-node); empty: nothing.
	Label string
	// Foreign are the node paths of runtime-named files in the bin dir that this installer did not write and left
	// untouched (see binaries.Foreign); the summary warns about them.
	Foreign []string
	// GVisor and RunscSum are the installed runsc's version and SHA-512 (install only).
	GVisor, RunscSum string
	// GPU is the GPU pre-flight's verdict on a node with NVIDIA devices (Options.GPU); nil elsewhere.
	GPU *gpu.Verdict
}

// Report is what a successful run leaves in its pod's status (package report).
func (r Result) Report() nodecontract.Report {
	return nodecontract.Report{Uninstall: r.Action == string(ActionUninstall), GVisor: r.GVisor, RunscSum: r.RunscSum,
		Containerd: r.Containerd, Foreign: r.Foreign, GPU: GPUReport(r.GPU)}
}

// Summary is the one line the command prints at the end of a successful run.
func (r Result) Summary() string {
	return r.summary(r.Action)
}

// FailedSummary is the one line the command prints at the end of a failed run: what was done before the failure.
func (r Result) FailedSummary() string {
	return r.summary(r.Action + " FAILED")
}

func (r Result) summary(prefix string) string {
	what := "unchanged"
	if len(r.Changed) > 0 {
		what = "changed " + strings.Join(r.Changed, ", ")
	}
	restarted := "containerd not restarted"
	if r.Restarts > 0 {
		restarted = fmt.Sprintf("containerd restarted (%d)", r.Restarts)
	}
	s := prefix + ": " + what + "; " + restarted
	if r.RolledBack {
		s += "; previous containerd config restored"
	}
	if r.Unregistered {
		s += "; runsc unregistered"
	}
	if r.Verdict != "" {
		s += "; " + r.Verdict
	}
	if r.Label != "" {
		s += "; " + r.Label
	}
	if g := GPUReport(r.GPU); g != nil {
		s += "; " + g.String()
	}
	if len(r.Foreign) > 0 {
		s += "; " + ForeignWarning(r.Foreign)
	}
	return s
}

// ForeignWarning is the summary's (and the health reason's) warning about foreign runtime-named files in the bin dir.
func ForeignWarning(paths []string) string {
	return "WARNING: not written by this installer and left untouched, but on containerd's PATH before everything else " +
		"(run as root for every pod of that runtime): " + strings.Join(paths, ", ") +
		"; remove them unless another container runtime extension installed them"
}

// apply writes the plan, then restarts and verifies containerd when its configuration changed, rolling back on
// failure. Without a configuration change it still checks (when it can) that the config on disk is in effect: a
// previous run may have written it and died before the restart.
func (r *Run) apply(ctx context.Context, p *Plan, res *Result, want verify.Expect) error {
	log := r.opts.Logger
	j := &hostfs.Journal{} // a failing write undoes the earlier ones (temps.go)
	for _, c := range p.Changes {
		if err := r.unchangedSincePlan(c); err != nil {
			return r.undo(j, res, err)
		}
		if err := r.writeUndoable(j, c); err != nil {
			return r.undo(j, res, err)
		}
		res.Changed = append(res.Changed, c.String())
		log.Info("applied", "step", "write", "change", c.String())
	}
	r.commit(j)
	if err := r.cleanSidecarDir(p); err != nil {
		return err
	}
	if r.opts.Restarter == nil {
		if p.RestartNeeded() {
			log.Warn("containerd configuration changed but --restart=none: restart containerd to activate it", "step", "restart")
		}
		return nil
	}
	if !p.RestartNeeded() {
		if r.opts.Verifier == nil {
			return nil
		}
		err := r.opts.Verifier.Verify(ctx, want)
		if err == nil {
			log.Info("containerd already has the wanted runtimes", "step", "verify", "want", want.String())
			return nil
		}
		log.Warn("containerd config on disk is not in effect; restarting", "step", "verify", "error", err.Error())
	}
	if err := r.restartAndVerify(ctx, res, want); err != nil {
		if !p.RestartNeeded() {
			return err
		}
		return r.rollback(ctx, p, res, err)
	}
	return nil
}

func (r *Run) restartAndVerify(ctx context.Context, res *Result, want verify.Expect) error {
	log := r.opts.Logger
	rctx, cancel := context.WithTimeout(ctx, r.opts.VerifyTimeout)
	defer cancel()
	if err := r.opts.Restarter.Restart(rctx); err != nil {
		return fmt.Errorf("restarting containerd (%s): %w", r.opts.Restarter, err)
	}
	res.Restarts++
	log.Info("restarted containerd", "step", "restart", "via", r.opts.Restarter.String())
	if r.opts.Verifier == nil {
		return nil
	}
	if err := verify.Until(ctx, r.opts.Verifier, want, r.opts.VerifyTimeout, r.opts.VerifyInterval); err != nil {
		return err
	}
	log.Info("verified containerd over CRI", "step", "verify", "want", want.String())
	return nil
}

// rollback restores containerd's configuration files to what they were before this run and restarts again.
func (r *Run) rollback(ctx context.Context, p *Plan, res *Result, cause error) error {
	r.opts.Logger.Error("containerd did not come back healthy; restoring its previous configuration", "step", "rollback", "error", cause.Error())
	if err := r.restorePrevious(ctx, p, res); err != nil {
		return fmt.Errorf("%s; rollback: %w", cause.Error(), err)
	}
	if !res.RolledBack {
		return fmt.Errorf("containerd did not come back healthy with the new configuration; another writer changed it meanwhile, and containerd runs on what that writer left: %w", cause)
	}
	return fmt.Errorf("containerd did not come back healthy with the new configuration, the previous one is restored and containerd runs on it: %w", cause)
}

// restorePrevious writes containerd's configuration files of the plan (and the release switch) back as they were
// before it, restarts containerd and verifies that it serves CRI again. A file another writer changed after this
// run keeps that writer's content: a rollback never overwrites newer bytes.
func (r *Run) restorePrevious(ctx context.Context, p *Plan, res *Result) error {
	var errs []error
	var kept []string // files another writer changed after this run: their content stays
	for i := len(p.Changes) - 1; i >= 0; i-- {
		c := p.Changes[i]
		if !c.Containerd && !c.Switch {
			continue
		}
		if c.Containerd {
			ours, err := r.stillOurs(c)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if !ours {
				r.opts.Logger.Warn("not restored: another writer changed it after this run, its content stays", "step", "rollback", "file", c.NodePath)
				kept = append(kept, c.NodePath)
				continue
			}
		}
		restore := Change{NodePath: c.NodePath, Data: c.Previous, Perm: c.Perm, Link: c.PreviousLink}
		if err := r.write(restore); err != nil {
			errs = append(errs, err)
			continue
		}
		r.opts.Logger.Info("restored", "step", "rollback", "file", c.NodePath)
	}
	res.RolledBack = len(errs) == 0 && len(kept) == 0
	if err := r.restartAndVerify(ctx, res, verify.Up); err != nil {
		errs = append(errs, fmt.Errorf("containerd is not healthy after the rollback either: %w", err))
	}
	return errors.Join(errs...)
}

func (r *Run) write(c Change) error {
	path := r.host(c.NodePath)
	switch {
	case c.Tree:
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("removing %s: %w", c.NodePath, err)
		}
		return nil
	case c.removes():
		return hostfs.Remove(path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(c.NodePath), err)
	}
	switch {
	case c.Link != "":
		return hostfs.SymlinkAtomic(c.Link, path)
	case c.Adopt != "":
		return hostfs.HardlinkAtomic(c.Adopt, path)
	case c.Source != "":
		return hostfs.CopyFileAtomicObserved(c.Source, path, c.Sum, c.Perm, r.opts.copyHook)
	}
	return hostfs.WriteFileAtomic(path, c.Data, c.Perm)
}

// cleanSidecarDir removes gvisor-bin/ when this run removed its last file.
func (r *Run) cleanSidecarDir(p *Plan) error {
	side := filepath.Join(p.binDir, nodecontract.SideDir)
	removed := false
	for _, c := range p.Changes {
		removed = removed || (c.removes() && filepath.Dir(r.host(c.NodePath)) == side)
	}
	if entries, err := os.ReadDir(side); removed && err == nil && len(entries) == 0 {
		if err := os.Remove(side); err != nil {
			return fmt.Errorf("removing empty %s: %w", side, err)
		}
	}
	return nil
}
