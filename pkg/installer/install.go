// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/cgroups"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdversion"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

// versionTimeout bounds the CRI Version call before the host is touched: a containerd that does not answer in
// that time is treated as down (the repair proceeds and the version is checked after the restart).
const versionTimeout = 5 * time.Second

// install takes the node's lock, checks containerd's version, verifies, plans and applies (see the package doc),
// then proves with a real sandbox that gVisor works (Options.Prover) and, with NodeLabel, labels the node. A proof
// that fails unregisters runsc again (withdraw) and fails the install; so does a failure to label, which leaves
// runsc installed.
func (r *Run) install(ctx context.Context) (Result, error) {
	res := Result{Action: string(ActionInstall)}
	driver := r.waitForDriver(ctx)
	unlock, err := r.lock(ctx, "install", true)
	if err != nil {
		return res, err
	}
	defer unlock()

	answered, err := r.checkContainerdBefore(ctx, &res)
	if err != nil {
		return res, err
	}
	if answered {
		if err := r.checkCgroups(ctx, &res); err != nil {
			return res, err
		}
	}
	r.checkGPU(ctx, driver, answered, &res)
	p, err := r.planAndApply(r.planInstall, r.applyRelease(ctx, &res))
	if err != nil {
		return res, err
	}
	if !answered {
		if err := r.checkContainerdAfter(ctx, &res); err != nil {
			r.discardRecord(p.release)
			return res, r.withdraw(ctx, p, &res, err)
		}
	}
	if err := r.proveRelease(ctx, p, &res); err != nil {
		return res, err
	}
	return res, r.setNodeLabel(ctx, &res)
}

// applyRelease is the apply step of a run that puts a release in place (install, activate): a release whose proof
// failed before is refused until its back-off passed, the record a successful proof leaves is staged, then the
// plan is applied (apply).
func (r *Run) applyRelease(ctx context.Context, res *Result) func(*Plan) error {
	return func(p *Plan) error {
		res.Foreign, res.GVisor, res.RunscSum = p.Foreign, p.GVisor, p.RunscSum
		if err := r.refuseRemembered(p, res); err != nil {
			return err
		}
		if err := r.stageRecord(p); err != nil {
			return err
		}
		if err := r.apply(ctx, p, res, verify.Runsc); err != nil {
			r.discardRecord(p.release)
			return err
		}
		return nil
	}
}

// proveRelease proves the release p put in place (Options.Prover) and records the outcome: a failure falls back to
// the last proven release (proofFailed), a success records it and runs the GPU proof.
func (r *Run) proveRelease(ctx context.Context, p *Plan, res *Result) error {
	if err := r.prove(ctx, res); err != nil {
		r.discardRecord(p.release)
		if ctx.Err() != nil {
			// SIGTERM during the proof says nothing about gVisor: the next run proves again.
			return fmt.Errorf("%w (interrupted: runsc stays registered, the next run proves again)", err)
		}
		return r.proofFailed(ctx, p, res, err)
	}
	if err := r.proven(p, res); err != nil {
		return err
	}
	r.proveGPU(ctx, res)
	return nil
}

// checkContainerdBefore reads containerd's version over CRI before the host is touched and refuses one this release
// does not support (package containerdversion). It returns answered=false when CRI does not answer (containerd
// down, e.g. killed by the field's extension's wrong plugin key): that is no reason to refuse, the repair proceeds.
func (r *Run) checkContainerdBefore(ctx context.Context, res *Result) (answered bool, err error) {
	if r.opts.Verifier == nil {
		return true, nil // --restart=none: the installer does not talk to containerd
	}
	vctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	name, version, err := r.opts.Verifier.RuntimeVersion(vctx)
	if err != nil {
		r.opts.Logger.Warn("containerd does not answer over CRI; repairing first, its version is checked once it answers", "step", "containerd-version", "error", err.Error())
		return false, nil
	}
	return true, r.acceptContainerd(name, version, res)
}

// checkContainerdAfter is the version check of a run that found containerd down: containerd answers now (apply
// verified it). A version below the minimum gets the refusal's message, but as a failure (exit 1): the host was
// touched, and withdraw restores containerd's previous configuration.
func (r *Run) checkContainerdAfter(ctx context.Context, res *Result) error {
	vctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	name, version, err := r.opts.Verifier.RuntimeVersion(vctx)
	if err != nil {
		r.opts.Logger.Warn("containerd's version is unknown (CRI Version failed); the sandbox proof decides", "step", "containerd-version", "error", err.Error())
		return nil
	}
	if err := r.acceptContainerd(name, version, res); err != nil {
		return errors.New(err.Error())
	}
	return nil
}

// checkCgroups refuses a node whose cgroups would not hold gVisor pods (package cgroups) before the host is touched.
// Where the hierarchy or the driver cannot be read, it says so and goes on: the sandbox proof still decides.
func (r *Run) checkCgroups(ctx context.Context, res *Result) error {
	dr, ok := r.opts.Verifier.(verify.CgroupDriverReader)
	if r.opts.CgroupRoot == "" || !ok {
		return nil
	}
	vctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	node, err := cgroups.Read(vctx, r.opts.CgroupRoot, dr)
	if err != nil {
		r.opts.Logger.Warn("cannot read the node's cgroups; the sandbox proof decides", "step", "cgroups", "error", err.Error())
		return nil
	}
	if err := cgroups.Check(node.Hierarchy, node.SystemdDriver); err != nil {
		res.Verdict = node.String() + " is not supported (runsc would run gVisor pods outside their pods' cgroups): use a machine image with cgroup v2"
		r.opts.Logger.Error("cgroups not supported", "step", "cgroups", "hierarchy", node.Hierarchy.String(), "driver", node.Driver())
		return err
	}
	r.opts.Logger.Info("cgroups supported", "step", "cgroups", "hierarchy", node.Hierarchy.String(), "driver", node.Driver())
	return nil
}

// acceptContainerd applies the version policy to what CRI Version reported.
func (r *Run) acceptContainerd(name, version string, res *Result) error {
	res.Containerd = strings.TrimSpace(name + " " + version)
	v, parsed, err := containerdversion.Check(name, version)
	switch {
	case err != nil:
		res.Verdict = fmt.Sprintf("%s is not supported (minimum containerd %s)", res.Containerd, containerdversion.Minimum())
		r.opts.Logger.Error("containerd version not supported", "step", "containerd-version", "runtime", name, "version", version, "minimum", containerdversion.Minimum().String())
		return err
	case !parsed:
		r.opts.Logger.Warn("cannot parse containerd's version; the sandbox proof decides", "step", "containerd-version", "version", version)
	default:
		r.opts.Logger.Info("containerd version supported", "step", "containerd-version", "version", v.String(), "minimum", containerdversion.Minimum().String())
	}
	return nil
}

// prove runs the sandbox proof, if configured.
func (r *Run) prove(ctx context.Context, res *Result) error {
	if r.opts.Prover == nil {
		return nil
	}
	on := ""
	if res.Containerd != "" {
		on = " on " + res.Containerd
	}
	proof, err := r.opts.Prover.Prove(ctx)
	if err != nil {
		res.Verdict = "gVisor sandbox did not start" + on + ": " + err.Error()
		r.opts.Logger.Error("gVisor sandbox did not start", "step", "prove-sandbox", "containerd", res.Containerd, "error", err.Error())
		return fmt.Errorf("gVisor sandbox did not start%s: %w", on, err)
	}
	res.Sandbox = &proof
	res.Verdict = proof.String() + on
	r.opts.Logger.Info("gVisor sandbox proven", "step", "prove-sandbox", "handler", proof.Handler, "runtime_type", proof.RuntimeType,
		"started_in", proof.Started.String(), "total", proof.Total.String(), "leftovers_removed", proof.Leftovers, "containerd", res.Containerd)
	return nil
}

// proofStep is the plan's line for the proof, empty without a Prover.
func (r *Run) proofStep() string {
	if r.opts.Prover == nil {
		return ""
	}
	return "prove: start a gVisor sandbox over CRI and remove it (runsc is unregistered again if it does not start)"
}
