// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
)

// NodeLabel is the installer's part of the scheduling readiness gate (docs/readiness-gate.md, --label-node): the
// node's label nodelabel.Key tells the scheduler that gVisor pods may run there.
//
// Install sets it only after runsc is registered and verified over CRI and (with Options.Prover) a gVisor sandbox
// started, so the label never promises a runsc that does not work; failing to set it fails the install (the pod is not Ready and retries). Uninstall removes it before
// it unregisters runsc, so the scheduler stops sending gVisor pods to the node first.
type NodeLabel struct {
	// Client is a REST client for the core API group (nodelabel.NewClient's for a given rest.Config); nil: Resolve
	// builds it with Connect.
	Client rest.Interface
	// Connect builds Client when Resolve resolves a run that acts (in the pod: nodelabel.InClusterClient, which
	// needs the pod's service account token); a run that only plans sends nothing and does not call it.
	Connect func() (rest.Interface, error)
	// NodeName is the node the installer runs on ($NODE_NAME from the downward API in the pod).
	NodeName string
}

// resolve returns a copy of l the run can use, or why it cannot (Resolve's rules for --label-node, the only place
// they are checked). unverified is an install without the CRI verification of --restart=systemd: the label says
// runsc works, which only a verified containerd shows.
func (l *NodeLabel) resolve(unverified, planOnly bool) (*NodeLabel, error) {
	c := *l
	var errs []error
	if c.NodeName == "" {
		errs = append(errs, fmt.Errorf("--label-node: %w", nodelabel.ErrNoNodeName))
	}
	if c.Client == nil && c.Connect != nil && !planOnly {
		client, err := c.Connect()
		if err != nil {
			errs = append(errs, fmt.Errorf("--label-node: %w", err))
		}
		c.Client = client
	}
	if c.Client == nil && c.Connect == nil && !planOnly {
		errs = append(errs, errors.New("--label-node: no API client (NodeLabel.Client or Connect)"))
	}
	if unverified {
		errs = append(errs, errors.New("--label-node needs --restart=systemd: the label says runsc works, which the installer "+
			"only knows after verifying containerd over CRI, and --restart=none verifies nothing"))
	}
	return &c, errors.Join(errs...)
}

// labelStep is the plan's line for the label, in the words of the summary; empty without --label-node.
func (r *Run) labelStep(install bool) string {
	if r.opts.NodeLabel == nil {
		return ""
	}
	if install {
		return fmt.Sprintf("label node %s %s=%s (after runsc is verified over CRI; idempotent)", r.opts.NodeLabel.NodeName, nodelabel.Key, nodelabel.Value)
	}
	return fmt.Sprintf("unlabel node %s %s (before runsc is unregistered; idempotent)", r.opts.NodeLabel.NodeName, nodelabel.Key)
}

// setNodeLabel sets the readiness label, except on a GPU node whose GPU pods cannot run in gVisor (gpuReady),
// from which it removes it: a GPU pod that asks for gVisor then never lands where it would get no GPU, at the cost
// of that node's other gVisor pods, which the pool's CPU nodes take (docs/readiness-gate.md, GPU nodes).
func (r *Run) setNodeLabel(ctx context.Context, res *Result) error {
	if r.opts.NodeLabel == nil {
		return nil
	}
	if r.gpu != nil && !r.gpuReady() {
		if err := r.removeNodeLabel(ctx, res); err != nil {
			return fmt.Errorf("gVisor GPU pods cannot run on this node, and removing its readiness label failed: %w", err)
		}
		res.Label = fmt.Sprintf("node %s not labelled %s: GPU pods cannot run in gVisor there (%s)", r.opts.NodeLabel.NodeName, nodelabel.Key, r.gpu.Status)
		r.opts.Logger.Warn("GPU node not labelled for gVisor pods", "step", "label-node", "node", r.opts.NodeLabel.NodeName, "gpu", string(r.gpu.Status))
		return nil
	}
	if err := nodelabel.Set(ctx, r.opts.NodeLabel.Client, r.opts.NodeLabel.NodeName); err != nil {
		return fmt.Errorf("runsc is installed and verified, but without the readiness label the scheduler sends no gVisor pods "+
			"to this node (the pod stays not Ready and retries): %w", err)
	}
	res.Label = fmt.Sprintf("node %s labelled %s=%s", r.opts.NodeLabel.NodeName, nodelabel.Key, nodelabel.Value)
	r.opts.Logger.Info("labelled node", "step", "label-node", "node", r.opts.NodeLabel.NodeName, "label", nodelabel.Key)
	return nil
}

// removeNodeLabel removes the node's readiness label, if the gate is on.
func (r *Run) removeNodeLabel(ctx context.Context, res *Result) error {
	if r.opts.NodeLabel == nil {
		return nil
	}
	if err := nodelabel.Remove(ctx, r.opts.NodeLabel.Client, r.opts.NodeLabel.NodeName); err != nil {
		return err
	}
	res.Label = fmt.Sprintf("label %s removed from node %s", nodelabel.Key, r.opts.NodeLabel.NodeName)
	r.opts.Logger.Info("removed the node's readiness label", "step", "unlabel-node", "node", r.opts.NodeLabel.NodeName, "label", nodelabel.Key)
	return nil
}
