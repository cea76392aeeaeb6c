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
	// Client is a REST client for the core API group: nodelabel.InClusterClient's in the installation pod, or
	// nodelabel.NewClient's for a given rest.Config.
	Client rest.Interface
	// NodeName is the node the installer runs on (nodelabel.NodeNameFromEnv in the pod).
	NodeName string
}

// checkNodeLabel rejects a NodeLabel the run could not use. install also needs the CRI verification: the label says runsc
// works, which only a verified containerd shows.
func (o *Options) checkNodeLabel(install bool) error {
	l := o.NodeLabel
	if l == nil {
		return nil
	}
	var errs []error
	if l.NodeName == "" {
		errs = append(errs, fmt.Errorf("--label-node: no node name: set %s from the downward API (fieldRef spec.nodeName)", nodelabel.NodeNameEnv))
	}
	if l.Client == nil {
		errs = append(errs, errors.New("--label-node: no API client"))
	}
	if install && (o.Restarter == nil || o.Verifier == nil) {
		errs = append(errs, errors.New("--label-node needs --restart=systemd: the label says runsc works, which the installer "+
			"only knows after verifying containerd over CRI, and --restart=none verifies nothing"))
	}
	return errors.Join(errs...)
}

// labelStep is the plan's line for the label, in the words of the summary; empty without --label-node.
func (o *Options) labelStep(install bool) string {
	if o.NodeLabel == nil {
		return ""
	}
	if install {
		return fmt.Sprintf("label node %s %s=%s (after runsc is verified over CRI; idempotent)", o.NodeLabel.NodeName, nodelabel.Key, nodelabel.Value)
	}
	return fmt.Sprintf("unlabel node %s %s (before runsc is unregistered; idempotent)", o.NodeLabel.NodeName, nodelabel.Key)
}

func (o *Options) setNodeLabel(ctx context.Context, res *Result) error {
	if o.NodeLabel == nil {
		return nil
	}
	if err := nodelabel.Set(ctx, o.NodeLabel.Client, o.NodeLabel.NodeName); err != nil {
		return fmt.Errorf("runsc is installed and verified, but without the readiness label the scheduler sends no gVisor pods "+
			"to this node (the pod stays not Ready and retries): %w", err)
	}
	res.Label = fmt.Sprintf("node %s labelled %s=%s", o.NodeLabel.NodeName, nodelabel.Key, nodelabel.Value)
	o.Logger.Info("labelled node", "step", "label-node", "node", o.NodeLabel.NodeName, "label", nodelabel.Key)
	return nil
}

func (o *Options) removeNodeLabel(ctx context.Context, res *Result) error {
	if o.NodeLabel == nil {
		return nil
	}
	if err := nodelabel.Remove(ctx, o.NodeLabel.Client, o.NodeLabel.NodeName); err != nil {
		return fmt.Errorf("runsc is still registered (nothing on the node changed): it is unregistered only after the "+
			"scheduler stops sending gVisor pods here: %w", err)
	}
	res.Label = fmt.Sprintf("label %s removed from node %s", nodelabel.Key, o.NodeLabel.NodeName)
	o.Logger.Info("removed the node's readiness label", "step", "unlabel-node", "node", o.NodeLabel.NodeName, "label", nodelabel.Key)
	return nil
}
