package installer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdversion"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

// versionTimeout bounds the CRI Version call before the host is touched: a containerd that does not answer in
// that time is treated as down (the repair proceeds and the version is checked after the restart).
const versionTimeout = 5 * time.Second

// Install takes the node's lock, checks containerd's version, verifies, plans and applies (see the package doc),
// then proves with a real sandbox that gVisor works (Options.Prover) and, with NodeLabel, labels the node. A proof
// that fails unregisters runsc again (withdraw) and fails the install; so does a failure to label, which leaves
// runsc installed.
func Install(ctx context.Context, o Options) (Result, error) {
	res := Result{Action: "install"}
	if err := o.validate(true); err != nil {
		return res, err
	}
	if err := errors.Join(o.checkNodeLabel(true), o.checkProver()); err != nil {
		return res, err
	}
	unlock, err := o.lock(ctx, "install", true)
	if err != nil {
		return res, err
	}
	defer unlock()

	answered, err := o.checkContainerdBefore(ctx, &res)
	if err != nil {
		return res, err
	}
	p, err := PlanInstall(o)
	if err != nil {
		return res, err
	}
	res.Foreign = p.Foreign
	if err := o.apply(ctx, p, &res, verify.Runsc); err != nil {
		return res, err
	}
	if !answered {
		if err := o.checkContainerdAfter(ctx, &res); err != nil {
			return res, o.withdraw(ctx, p, &res, err)
		}
	}
	if err := o.prove(ctx, &res); err != nil {
		if ctx.Err() != nil {
			// SIGTERM during the proof says nothing about gVisor: the next run proves again.
			return res, fmt.Errorf("%w (interrupted: runsc stays registered, the next run proves again)", err)
		}
		return res, o.withdraw(ctx, p, &res, err)
	}
	return res, o.setNodeLabel(ctx, &res)
}

// checkProver rejects a Prover without the restart and CRI verification a failed proof's rollback needs.
func (o *Options) checkProver() error {
	if o.Prover != nil && (o.Restarter == nil || o.Verifier == nil) {
		return errors.New("--prove-sandbox needs --restart=systemd: a sandbox that does not start makes the installer restore " +
			"containerd's previous configuration, which takes a restart verified over CRI")
	}
	return nil
}

// checkContainerdBefore reads containerd's version over CRI before the host is touched and refuses one this release
// does not support (package containerdversion). It returns answered=false when CRI does not answer (containerd
// down, e.g. killed by the old extension's wrong plugin key): that is no reason to refuse, the repair proceeds.
func (o *Options) checkContainerdBefore(ctx context.Context, res *Result) (answered bool, err error) {
	if o.Verifier == nil {
		return true, nil // --restart=none: the installer does not talk to containerd
	}
	vctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	name, version, err := o.Verifier.RuntimeVersion(vctx)
	if err != nil {
		o.Logger.Warn("containerd does not answer over CRI; repairing first, its version is checked once it answers", "step", "containerd-version", "error", err.Error())
		return false, nil
	}
	return true, o.acceptContainerd(name, version, res)
}

// checkContainerdAfter is the version check of a run that found containerd down: containerd answers now (apply
// verified it). A version below the minimum gets the refusal's message, but as a failure (exit 1): the host was
// touched, and withdraw restores containerd's previous configuration.
func (o *Options) checkContainerdAfter(ctx context.Context, res *Result) error {
	vctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	name, version, err := o.Verifier.RuntimeVersion(vctx)
	if err != nil {
		o.Logger.Warn("containerd's version is unknown (CRI Version failed); the sandbox proof decides", "step", "containerd-version", "error", err.Error())
		return nil
	}
	if err := o.acceptContainerd(name, version, res); err != nil {
		return errors.New(err.Error())
	}
	return nil
}

// acceptContainerd applies the version policy to what CRI Version reported.
func (o *Options) acceptContainerd(name, version string, res *Result) error {
	res.Containerd = strings.TrimSpace(name + " " + version)
	v, parsed, err := containerdversion.Check(name, version)
	switch {
	case err != nil:
		res.Verdict = fmt.Sprintf("%s is not supported (minimum containerd %s)", res.Containerd, containerdversion.Minimum())
		o.Logger.Error("containerd version not supported", "step", "containerd-version", "runtime", name, "version", version, "minimum", containerdversion.Minimum().String())
		return err
	case !parsed:
		o.Logger.Warn("cannot parse containerd's version; the sandbox proof decides", "step", "containerd-version", "version", version)
	default:
		o.Logger.Info("containerd version supported", "step", "containerd-version", "version", v.String(), "minimum", containerdversion.Minimum().String())
	}
	return nil
}

// prove runs the sandbox proof, if configured.
func (o *Options) prove(ctx context.Context, res *Result) error {
	if o.Prover == nil {
		return nil
	}
	on := ""
	if res.Containerd != "" {
		on = " on " + res.Containerd
	}
	proof, err := o.Prover.Prove(ctx)
	if err != nil {
		res.Verdict = "gVisor sandbox did not start" + on + ": " + err.Error()
		o.Logger.Error("gVisor sandbox did not start", "step", "prove-sandbox", "containerd", res.Containerd, "error", err.Error())
		return fmt.Errorf("gVisor sandbox did not start%s: %w", on, err)
	}
	res.Sandbox = &proof
	res.Verdict = proof.String() + on
	o.Logger.Info("gVisor sandbox proven", "step", "prove-sandbox", "handler", proof.Handler, "runtime_type", proof.RuntimeType,
		"started_in", proof.Started.String(), "total", proof.Total.String(), "leftovers_removed", proof.Leftovers, "containerd", res.Containerd)
	return nil
}

// proofStep is the plan's line for the proof, empty without a Prover.
func (o *Options) proofStep() string {
	if o.Prover == nil {
		return ""
	}
	return "prove: start a gVisor sandbox over CRI and remove it (runsc is unregistered again if it does not start)"
}

// PlanLocked is what `gvisor-installer plan` runs: PlanInstall or PlanUninstall while holding the node's lock shared, so
// that it does not read a state another run is halfway through writing (and does not list that run's
// temporaries as stale). It writes nothing, the lock included.
func PlanLocked(ctx context.Context, o Options, uninstall bool) (*Plan, error) {
	if err := o.validate(!uninstall); err != nil {
		return nil, err
	}
	unlock, err := o.lock(ctx, "plan", false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if uninstall {
		return PlanUninstall(o)
	}
	return PlanInstall(o)
}
