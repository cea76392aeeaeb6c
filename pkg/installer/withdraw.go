// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"context"
	"errors"
	"fmt"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

// withdraw leaves the node with runsc not registered after containerd came back healthy with it but gVisor cannot
// work there (the sandbox proof failed, or containerd turned out to be older than the minimum): the kubelet must
// not be offered a runtime handler whose sandboxes cannot start, and the install fails (the pod stays not Ready and
// retries).
//
// When this run changed containerd's configuration, the previous one is restored exactly as after a failed
// verification (rollback). When runsc was registered before this run (nothing to restore), or the restored
// configuration still registers it, runsc is unregistered with the uninstall's configuration change
// (planUnregister). Binaries and runsc.toml stay: without the handler nothing runs them, and the next run needs
// them.
//
// With the readiness gate, the node's label goes first, as in the uninstall: an earlier good run set it, and a
// node that keeps it while runsc is withdrawn is exactly what the gate exists to prevent. A label that cannot be
// removed does not stop the withdrawal (gVisor does not work here either way); the error says so.
func (r *Run) withdraw(ctx context.Context, p *Plan, res *Result, cause error) error {
	log := r.opts.Logger
	if err := r.removeNodeLabel(ctx, res); err != nil {
		cause = fmt.Errorf("%w; removing the node's readiness label: %v", cause, err)
	}
	if p.RestartNeeded() {
		log.Error("gVisor cannot work on this node; restoring containerd's previous configuration", "step", "rollback", "error", cause.Error())
		if err := r.restorePrevious(ctx, p, res); err != nil {
			return fmt.Errorf("%w; restoring containerd's previous configuration: %v", cause, err)
		}
		if err := r.opts.Verifier.Verify(ctx, verify.NoRunsc); err == nil {
			return fmt.Errorf("%w; containerd's previous configuration is restored, runsc is not registered", cause)
		}
		log.Warn("containerd's previous configuration registers runsc too; unregistering it", "step", "unregister")
	} else {
		log.Error("gVisor cannot work on this node; unregistering runsc", "step", "unregister", "error", cause.Error())
	}
	if err := r.unregister(ctx, res); err != nil {
		return fmt.Errorf("%w; unregistering runsc: %v", cause, err)
	}
	return fmt.Errorf("%w; runsc is unregistered from containerd", cause)
}

// unregister makes the uninstall's change to containerd's configuration, restarts containerd and verifies that
// runsc is gone; when containerd does not come back healthy, that change is rolled back too.
func (r *Run) unregister(ctx context.Context, res *Result) error {
	up := &Plan{binDir: r.host(r.opts.BinDir)}
	if err := r.planUnregister(up); err != nil {
		return err
	}
	if !up.RestartNeeded() {
		return errors.New("no configuration file of gvisor-installer registers runsc, yet containerd has it")
	}
	for _, c := range up.Changes {
		if err := r.write(c); err != nil {
			return err
		}
		res.Changed = append(res.Changed, c.String())
		r.opts.Logger.Info("applied", "step", "unregister", "change", c.String())
	}
	if err := r.restartAndVerify(ctx, res, verify.NoRunsc); err != nil {
		return r.rollback(ctx, up, res, err)
	}
	res.Unregistered = true
	return nil
}
