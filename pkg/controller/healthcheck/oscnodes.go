// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gardener/gardener/extensions/pkg/controller/healthcheck"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/oscstate"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
)

// oscNodesCheck computes EveryNodeReady in the OperatingSystemConfig delivery mode, where no pod of ours runs in
// the shoot: from the pool's OSC secret and what gardener-node-agent reports on each Node (package oscstate).
type oscNodesCheck struct {
	seed  client.Client
	reads *shootReads
}

var _ healthcheck.HealthCheck = oscNodesCheck{}

func (c oscNodesCheck) Check(ctx context.Context, key types.NamespacedName) (*healthcheck.SingleCheckResult, error) {
	cr, err := readRuntime(ctx, c.seed, key)
	if err != nil {
		return nil, err
	}
	var state *oscstate.Pool
	if err := c.reads.withShoot(ctx, key.Namespace, func(shoot client.Reader) error {
		var err error
		state, err = oscstate.Read(ctx, shoot, cr.Spec.WorkerPool.Name)
		return err
	}); err != nil {
		return nil, err
	}
	return oscNodesResult(cr.Spec.WorkerPool.Name, state), nil
}

func (oscNodesCheck) SetLoggerSuffix(string, string) {}

// oscNodesResult is EveryNodeReady for the pool's OSC state: True when every node applied the pool's current OSC,
// which delivers gVisor, and no node reports our sandbox proof failed; False naming the nodes whose proof failed;
// Progressing (bounded by installingThreshold, then False) while the OSC does not deliver gVisor yet or nodes have
// not applied it.
func oscNodesResult(pool string, state *oscstate.Pool) *healthcheck.SingleCheckResult {
	if len(state.Nodes) == 0 {
		return &healthcheck.SingleCheckResult{Status: gardencorev1beta1.ConditionTrue} // nothing to deliver to yet
	}
	threshold := installingThreshold
	progressing := func(detail string) *healthcheck.SingleCheckResult {
		return &healthcheck.SingleCheckResult{Status: gardencorev1beta1.ConditionProgressing, Detail: detail, ProgressingThreshold: &threshold}
	}
	switch {
	case state.SecretName == "":
		return progressing(fmt.Sprintf("worker pool %q has no OperatingSystemConfig secret in the shoot's kube-system yet", pool))
	case !state.OSC.Carries():
		return progressing(fmt.Sprintf("the OperatingSystemConfig of worker pool %q (secret kube-system/%s) does not deliver gVisor yet: "+
			"the extension's webhook adds it when gardenlet next writes the OSC (annotate the Shoot with gardener.cloud/operation=reconcile)",
			pool, state.SecretName))
	}
	var notReady []notReadyNode
	for _, n := range state.Nodes {
		switch {
		case n.ProofFailed != "":
			notReady = append(notReady, notReadyNode{name: n.Name, failed: true, reason: bound(
				"gardener-node-agent reports " + n.ProofFailed + "; see journalctl -u " + oscwebhook.ProofUnitName + " on the node")})
		case n.Applied == "":
			notReady = append(notReady, notReadyNode{name: n.Name, reason: "gardener-node-agent has not applied an OperatingSystemConfig yet"})
		case n.Applied != state.Checksum:
			// node-agent retries a reconcile that failed, e.g. on a sandbox proof that failed within its 10 s
			// job wait, without setting the annotation; the Node's events say which step.
			notReady = append(notReady, notReadyNode{name: n.Name, reason: "gardener-node-agent has not applied the pool's current OperatingSystemConfig yet " +
				"(if this lasts, the Node's events say which step fails, e.g. " + oscwebhook.ProofUnitName + ")"})
		}
	}
	if len(notReady) == 0 {
		return &healthcheck.SingleCheckResult{Status: gardencorev1beta1.ConditionTrue}
	}
	slices.SortFunc(notReady, func(a, b notReadyNode) int {
		if a.failed != b.failed {
			if a.failed {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	detail := notReadyMessage(pool, len(state.Nodes), notReady)
	if notReady[0].failed {
		return &healthcheck.SingleCheckResult{Status: gardencorev1beta1.ConditionFalse, Detail: detail}
	}
	return progressing(detail)
}
