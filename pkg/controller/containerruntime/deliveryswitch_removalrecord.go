// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/oscstate"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
)

// The OSC → DaemonSet switch without a rolling update (docs/delivery-modes.md). While the pool's only carrying
// reconcile OSC carries just the webhook's remove entry, the controller checks the shoot: when the pool's OSC
// secret also carries only the remove entry (none of our files), every node of the pool applied it (oscstate,
// gardenlet's own judgement) and no node is being replaced (those gardenlet does not judge), no node has runsc
// registered or its files any more. It records that in the
// ContainerRuntime's status.providerStatus as the seed OSC's UID and metadata.generation
// (v1alpha1.ContainerRuntimeStatus). At the next update of exactly that OSC version the webhook leaves the remove entry
// out; the OSC then carries nothing of ours and waitOSCClean lets the DaemonSet be deployed.
//
// Why a generation: node-agent can bring runsc back to a node only through an OSC spec with our add entry, and any
// change of the spec bumps metadata.generation (the OSC CRD has a status subresource). So while the OSC still has
// the recorded generation, every node stays gVisor-free, including nodes that join meanwhile (they boot from the
// pool's secret: remove entry, no files). A record that no longer matches (gVisor added again after a switch back
// to the OSC mode, a new OSC object) is simply never used; it is overwritten at the next match. The record lives in
// the status, not in an annotation: it is an observation of the controller, written only through the status
// subresource (which only the extension and gardenlet write), and it goes with the ContainerRuntime.

// removalProgress says, for waitOSCClean's message, how far the removal of osc (the pool's only carrying seed
// OSC, remove entry only) is, and records it once every node applied it.
func (a *Actuator) removalProgress(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, osc *extensionsv1alpha1.OperatingSystemConfig) (string, error) {
	state, err := a.shootOSCState(ctx, cr)
	if err != nil {
		return "", err
	}
	if state.OSC.Entry != oscstate.Remove || len(state.OSC.Files) > 0 || !state.AllApplied() {
		return fmt.Sprintf("the remove entry goes once every node applied it (%s), at the shoot's next reconcile after that", describe(state)), nil
	}
	if len(state.Replacing) > 0 {
		// Nodes being replaced are not judged by gardenlet's rule; one of them may not have applied the removal.
		return fmt.Sprintf("the remove entry goes once no node of the pool is being replaced any more (%s) and every node applied it",
			strings.Join(state.Replacing, ", ")), nil
	}
	if err := a.recordRemovalApplied(ctx, log, cr, osc); err != nil {
		return "", err
	}
	return fmt.Sprintf("every node applied the remove entry (%s; recorded in status.providerStatus at generation %d of OperatingSystemConfig %s): "+
		"the extension's webhook leaves it out when gardenlet next writes the OSC: annotate the Shoot with gardener.cloud/operation=reconcile",
		describe(state), osc.Generation, osc.Name), nil
}

// recordRemovalApplied writes oscwebhook.NewRemovalStatus(osc) into cr's status.providerStatus unless it is there
// already. cr is patched in place, so the library's own status patches after Reconcile keep it.
func (a *Actuator) recordRemovalApplied(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, osc *extensionsv1alpha1.OperatingSystemConfig) error {
	if cur, err := oscwebhook.RemovalStatusOf(cr); err == nil && cur != nil &&
		cur.RemovalAppliedOSCUID == osc.UID && cur.RemovalAppliedAtGeneration == osc.Generation {
		return nil
	}
	patch := client.MergeFrom(cr.DeepCopy())
	cr.Status.ProviderStatus = oscwebhook.NewRemovalStatus(osc)
	if err := a.client.Status().Patch(ctx, cr, patch); err != nil {
		return fmt.Errorf("recording in status.providerStatus of ContainerRuntime %s/%s that every node applied the remove entry of OperatingSystemConfig %s (generation %d): %w",
			cr.Namespace, cr.Name, osc.Name, osc.Generation, err)
	}
	log.Info("Every node of the pool applied the removal of gVisor from its OperatingSystemConfig: recorded for the webhook",
		"operatingSystemConfig", osc.Name, "generation", osc.Generation)
	return nil
}

// waitShootClean returns nil when the DaemonSet may be deployed after a removal the webhook dropped (cr carries
// a removal record): the pool's OSC secret in the shoot carries nothing of ours either, and every node applied it.
// Until gardenlet synced the dropped OSC the secret still has the remove entry; a node applying it after the
// DaemonSet registered runsc (containerd 1.x: at the entry's path in config.toml) would unregister it. Without a
// record (no switch through the record, e.g. a fresh pool) it adds nothing to waitOSCClean.
func (a *Actuator) waitShootClean(ctx context.Context, cr *extensionsv1alpha1.ContainerRuntime) error {
	if rec, _ := oscwebhook.RemovalStatusOf(cr); rec == nil { // an unreadable record is none, as for the webhook
		return nil
	}
	state, err := a.shootOSCState(ctx, cr)
	if err != nil {
		return err
	}
	if state.SecretName == "" || (state.OSC.Clean() && state.AllApplied()) {
		return nil
	}
	return &reconcilerutils.RequeueAfterError{RequeueAfter: switchPoll, Cause: fmt.Errorf(
		"delivery mode %s: worker pool %q gets its installation DaemonSet once the pool's OperatingSystemConfig in the shoot carries nothing of "+
			"gVisor and every node applied it (%s); gardenlet syncs it at the shoot's next reconcile: annotate the Shoot with gardener.cloud/operation=reconcile",
		delivery.DaemonSet, cr.Spec.WorkerPool.Name, describe(state))}
}
