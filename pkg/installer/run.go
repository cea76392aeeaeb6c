// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
)

// Action is what a Run does on the node.
type Action string

const (
	// ActionInstall puts gVisor on the node and registers runsc (Install).
	ActionInstall Action = "install"
	// ActionUninstall takes it off again (Uninstall).
	ActionUninstall Action = "uninstall"
	// ActionActivate is the OperatingSystemConfig mode's install (activate.go): gardener-node-agent staged the
	// release and registered runsc; the run puts the release in the layout, proves it and records the outcome,
	// never touching containerd's configuration.
	ActionActivate Action = "activate"
	// ActionDeactivate is the OperatingSystemConfig mode's removal (activate.go): the release layout goes, containerd's
	// configuration is node-agent's to change.
	ActionDeactivate Action = "deactivate"
)

// Run is one resolved run of the installer: its Options checked once for its Action, with the defaults filled in.
// It owns the plan, the apply and the rollback; nothing after Resolve validates or defaults again. The command line
// only parses flags into Options and hands them to Resolve (or ResolvePlan).
type Run struct {
	opts   Options
	action Action
	// planOnly marks a run of `gvisor-installer plan` (ResolvePlan): it plans and never acts.
	planOnly bool
	// gpu is the GPU pre-flight's verdict on this node (gpucheck.go), nil on a node without NVIDIA devices or
	// without Options.GPU; the plan turns nvproxy on from it.
	gpu *gpu.Verdict
}

// Resolve checks o for action, every rule at once (the error joins all that are broken, each naming its flag and
// the fix), and returns the run. Nothing on the node is read or written.
func Resolve(o Options, action Action) (*Run, error) { return resolve(o, action, false) }

// ResolvePlan is Resolve for a run that only plans (`gvisor-installer plan`): it sends nothing, so --label-node
// needs the node name (the plan names it) but no API client.
func ResolvePlan(o Options, action Action) (*Run, error) { return resolve(o, action, true) }

func resolve(o Options, action Action, planOnly bool) (*Run, error) {
	if !slices.Contains([]Action{ActionInstall, ActionUninstall, ActionActivate, ActionDeactivate}, action) {
		return nil, fmt.Errorf("unknown action %q: want %q, %q, %q or %q", action, ActionInstall, ActionUninstall, ActionActivate, ActionDeactivate)
	}
	install := action == ActionInstall
	nodeAgent := action == ActionActivate || action == ActionDeactivate
	var errs []error
	if o.HostRoot == "" || !filepath.IsAbs(o.HostRoot) {
		errs = append(errs, fmt.Errorf("--host-root must be an absolute path, got %q", o.HostRoot))
	}
	if o.BinDir == "" {
		o.BinDir = DefaultBinDir
	}
	if !filepath.IsAbs(o.BinDir) {
		errs = append(errs, fmt.Errorf("--bin-dir must be an absolute node path, got %q", o.BinDir))
	}
	if (install || action == ActionActivate) && o.Source == "" {
		errs = append(errs, errors.New("--source is required: the directory with the gVisor release (runsc, containerd-shim-runsc-v1, SHA512SUMS)"))
	}
	verifies := o.Restarter != nil && o.Verifier != nil
	if install && o.Prover != nil && !verifies {
		errs = append(errs, errors.New("--prove-sandbox needs --restart=systemd: a sandbox that does not start makes the installer restore "+
			"containerd's previous configuration, which takes a restart verified over CRI"))
	}
	if nodeAgent && (o.Restarter != nil || o.NodeLabel != nil) {
		errs = append(errs, fmt.Errorf("%s is the OperatingSystemConfig mode's: gardener-node-agent owns containerd's configuration and restarts, "+
			"and the mode has no readiness label; drop --restart and --label-node", action))
	}
	if o.NodeLabel != nil && !nodeAgent {
		label, err := o.NodeLabel.resolve(install && !verifies, planOnly)
		o.NodeLabel = label
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	o.defaults()
	return &Run{opts: o, action: action, planOnly: planOnly}, nil
}

// defaults fills in what Options leave zero.
func (o *Options) defaults() {
	if o.VerifyTimeout <= 0 {
		o.VerifyTimeout = 60 * time.Second
	}
	if o.VerifyInterval <= 0 {
		o.VerifyInterval = 500 * time.Millisecond
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Do runs the action: install or uninstall. A run resolved with ResolvePlan refuses (it only plans).
func (r *Run) Do(ctx context.Context) (Result, error) {
	if r.planOnly {
		return Result{Action: string(r.action)}, errors.New("this run was resolved with ResolvePlan and only plans: use Resolve to act")
	}
	switch r.action {
	case ActionUninstall:
		return r.uninstall(ctx)
	case ActionActivate:
		return r.activate(ctx)
	case ActionDeactivate:
		return r.deactivate(ctx)
	}
	return r.install(ctx)
}

// Plan returns the changes the run's action makes, computed without the node's lock (tests, benchmarks). It writes
// nothing.
func (r *Run) Plan() (*Plan, error) {
	switch r.action {
	case ActionUninstall:
		return r.planUninstall()
	case ActionActivate:
		return r.planActivate()
	case ActionDeactivate:
		return r.planDeactivate()
	}
	return r.planInstall()
}

// PlanLocked is what `gvisor-installer plan` runs: Plan while holding the node's lock shared, so that it does not
// read a state another run is halfway through writing (and does not list that run's temporaries as stale). It
// writes nothing, the lock included.
func (r *Run) PlanLocked(ctx context.Context) (*Plan, error) {
	unlock, err := r.lock(ctx, "plan", false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return r.Plan()
}

// Install is Resolve(o, ActionInstall) and Do.
func Install(ctx context.Context, o Options) (Result, error) {
	return resolveAndDo(ctx, o, ActionInstall)
}

// Uninstall is Resolve(o, ActionUninstall) and Do.
func Uninstall(ctx context.Context, o Options) (Result, error) {
	return resolveAndDo(ctx, o, ActionUninstall)
}

func resolveAndDo(ctx context.Context, o Options, action Action) (Result, error) {
	r, err := Resolve(o, action)
	if err != nil {
		return Result{Action: string(action)}, err
	}
	return r.Do(ctx)
}

// host returns the path under HostRoot of a node path.
func (r *Run) host(nodePath string) string { return filepath.Join(r.opts.HostRoot, nodePath) }

// Logger is the run's logger (Options.Logger, or a discarding one).
func (r *Run) Logger() *slog.Logger { return r.opts.Logger }

// Activate is Resolve(o, ActionActivate) and Do.
func Activate(ctx context.Context, o Options) (Result, error) {
	return resolveAndDo(ctx, o, ActionActivate)
}

// Deactivate is Resolve(o, ActionDeactivate) and Do.
func Deactivate(ctx context.Context, o Options) (Result, error) {
	return resolveAndDo(ctx, o, ActionDeactivate)
}
