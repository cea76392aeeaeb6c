// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/releases"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// attempt is what this run's proof judges (releases.Attempt).
func (r *Run) attempt(rp *releasePlan, res *Result) releases.Attempt {
	return releases.Attempt{Release: rp.id, Config: rp.config, Containerd: res.Containerd, Kernel: kernelRelease()}
}

// kernelRelease is the node's kernel release (a container shares its node's kernel); "" if unknown.
func kernelRelease() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	return b.String()
}

// running says what new gVisor sandboxes on the node get while this run's release is refused or failed.
func (rp *releasePlan) running() string {
	switch {
	case rp.previous != "" && rp.previous != rp.id && slices.Contains(rp.state.Good, rp.previous):
		return "running release " + rp.previous
	case rp.previous == rp.id && slices.Contains(rp.state.Good, rp.id):
		return "running release " + rp.id + " with its previous runsc flags"
	}
	return "no proven release on this node, runsc is not registered"
}

// refuseRemembered refuses, before anything on the node changes, an attempt that already failed its proof on this
// node and whose back-off has not passed: every retry of a failing installer would otherwise register runsc,
// restart containerd and withdraw it again. A new release, new runsc flags, another containerd or kernel are a
// new attempt.
func (r *Run) refuseRemembered(p *Plan, res *Result) error {
	rp := p.release
	if rp == nil || r.opts.Prover == nil {
		return nil
	}
	f, ok := rp.state.Failure(r.attempt(rp, res))
	if !ok || !time.Now().Before(f.RetryAt()) {
		return nil
	}
	// What the node runs comes first, the reason last, "; " between the parts: the health check shortens a long
	// line part by part (pkg/controller/healthcheck, bound).
	res.Verdict = fmt.Sprintf("release %s failed; %s; not tried again before %s (%d failures, the last at %s; new runsc flags, containerd or kernel are tried at once); %s",
		rp.id, rp.running(), f.RetryAt().Format(time.RFC3339), f.Attempts, f.At.Format(time.RFC3339), f.Reason)
	r.opts.Logger.Error("release failed its proof before; not trying again yet", "step", "prove-sandbox", "release", rp.id,
		"attempts", f.Attempts, "retry_at", f.RetryAt().Format(time.RFC3339), "reason", f.Reason)
	return errors.New(res.Verdict)
}

// proofFailed handles a failed proof of this run's release: it remembers the failure, puts the node back on the
// last proven release (or the release's previous runsc flags) and proves that again. Only when there is none, or
// it fails too, is runsc withdrawn (withdraw; an activation leaves containerd's configuration to node-agent).
func (r *Run) proofFailed(ctx context.Context, p *Plan, res *Result, cause error) error {
	rp := p.release
	if rp == nil {
		return r.withdraw(ctx, p, res, cause)
	}
	failure := rp.state.FailedNow(r.attempt(rp, res), cause.Error(), time.Now())
	failedVerdict := res.Verdict
	back, err := r.fallBack(rp, res)
	if err == nil && back != "" {
		if perr := r.prove(ctx, res); perr == nil {
			r.saveState(rp)
			res.Verdict = fmt.Sprintf("release %s failed; %s (proven again); %s", rp.id, back, failedVerdict)
			r.opts.Logger.Error("release failed its proof; the node runs the last proven one", "step", "fall-back", "release", rp.id,
				"running", back, "attempts", failure.Attempts, "retry_at", failure.RetryAt().Format(time.RFC3339))
			return fmt.Errorf("release %s failed its proof; %s (proven again), so gVisor pods keep working; %w", rp.id, back, cause)
		} else {
			err = perr
		}
	}
	// What the node runs comes first, the reason last (see refuseRemembered): an operator reads that the node has no
	// working gVisor, and why the fallback did not help.
	fallback := "no proven release on this node to fall back to"
	if err != nil {
		cause = fmt.Errorf("%w; falling back to the last proven release: %v", cause, err)
		fallback = fmt.Sprintf("falling back to the last proven release failed (%v)", err)
	}
	// The node runs no proven release, this one included.
	rp.state.Good = slices.DeleteFunc(rp.state.Good, func(id string) bool { return id == rp.id })
	r.saveState(rp)
	res.Verdict = fmt.Sprintf("release %s failed; %s; %s", rp.id, fallback, failedVerdict)
	if r.action == ActionActivate {
		// containerd's configuration is gardener-node-agent's: runsc stays registered, and the failure is the node's
		// to report (the proof unit fails).
		return fmt.Errorf("release %s failed its proof and the node has no proven release to fall back to: %w", rp.id, cause)
	}
	return r.withdraw(ctx, p, res, cause)
}

// fallBack points the node at what it ran before this run, when that was proven: the last proven release (one
// link rename), or the release's previous runsc.toml (one file). It returns what the node runs then, "" when there
// is nothing to fall back to.
func (r *Run) fallBack(rp *releasePlan, res *Result) (string, error) {
	if c := rp.configChange; c != nil && slices.Contains(rp.state.Good, rp.id) && c.Previous != nil {
		if err := hostfs.WriteFileAtomic(r.host(c.NodePath), c.Previous, c.Perm); err != nil {
			return "", err
		}
		res.Changed = append(res.Changed, "write "+c.NodePath+" (previous runsc flags restored)")
		return "running release " + rp.id + " with its previous runsc flags", nil
	}
	// Also when this run did not switch: an interrupted run may have left current on a release never proven.
	good := rp.state.LastGood(rp.id)
	if good == "" {
		return "", nil
	}
	bin := r.opts.BinDir
	if _, err := os.Stat(r.host(runscconfig.ReleasePath(bin, good))); err != nil {
		return "", fmt.Errorf("release %s is no longer complete on the node: %w", good, err)
	}
	link := path.Join(bin, nodecontract.CurrentLink)
	if err := hostfs.SymlinkAtomic(nodecontract.CurrentTarget(good), r.host(link)); err != nil {
		return "", err
	}
	res.Changed = append(res.Changed, "link "+link+" -> "+nodecontract.CurrentTarget(good)+" (back to the last proven release)")
	return "running release " + good, nil
}

// proven records a successful proof (or, without a Prover, a verified install) and removes the releases the node
// no longer needs.
func (r *Run) proven(p *Plan, res *Result) error {
	rp := p.release
	if rp == nil {
		return nil
	}
	rp.state.Proven(r.attempt(rp, res))
	if err := r.commitRecord(rp); err != nil {
		return err
	}
	r.collect(rp, res)
	return nil
}

// saveState writes what the node remembers; a failure to write it is logged, not fatal (the proof decides again).
func (r *Run) saveState(rp *releasePlan) {
	file := r.host(path.Join(r.opts.BinDir, nodecontract.StateFile))
	if old, err := releases.LoadState(file); err == nil && equalState(old, rp.state) {
		return
	}
	if err := rp.state.Save(file); err != nil {
		r.opts.Logger.Warn("cannot record the proof's outcome; the next run proves again", "step", "state", "file", nodecontract.StateFile, "error", err.Error())
	}
}

func equalState(a, b releases.State) bool {
	return slices.Equal(a.Good, b.Good) && slices.EqualFunc(a.Failed, b.Failed, func(x, y releases.Failure) bool {
		return x.Attempt == y.Attempt && x.At.Equal(y.At) && x.Attempts == y.Attempts && x.Reason == y.Reason
	})
}
