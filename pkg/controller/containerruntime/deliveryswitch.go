// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/oscstate"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
)

// The switch between the delivery modes (docs/delivery-modes.md, "Switching a landscape"). A pool has one
// deliverer at a time; the controller hands over only when the next one owns the same paths (DaemonSet to OSC) or
// the previous one has left every node (OSC to DaemonSet). It decides from the cluster each time; the one thing it
// records is an observation for the webhook (deliveryswitch_removalrecord.go: every node applied the remove entry):
//
//   - OSC mode, the pool's installation ManagedResource still there: it stays, untouched, until the pool's OSC
//     secret in the shoot (what node-agent downloads and new nodes boot with) delivers gVisor (oscstate.OSC.Carries);
//     then it is deleted WITHOUT the uninstall (node-agent overwrites the DaemonSet's files, deleting the
//     installation pods does not uninstall) and the RuntimeClass of the OSC mode follows.
//   - DaemonSet mode, no installation ManagedResource yet: it is created only when no reconcile OSC of the pool in
//     the seed carries an entry of the webhook (add, remove, or our files). node-agent deletes files that leave its
//     OSC and re-applies plugin entries on every later OSC change, so a DaemonSet that installed earlier would lose
//     its binaries, or (containerd 1.x) its registration in config.toml, to node-agent.
//
// While waiting, Reconcile returns a RequeueAfterError (lastError says what it waits for) and polls.

// switchPoll is the requeue interval while a switch waits for the shoot's next reconcile or node-agent.
const switchPoll = 30 * time.Second

// deliverySwitch returns nil when Reconcile may deploy what the current mode renders for the pool, a
// RequeueAfterError while the switch waits. In the OSC mode it deletes the pool's installation ManagedResource
// once the handover point is reached (and returns nil once it is gone).
func (a *Actuator) deliverySwitch(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, pool render.PoolObjects) error {
	name := InstallationManagedResourceName(cr.Spec.WorkerPool.Name)
	exists, err := a.managedResourceExists(ctx, cr.Namespace, name)
	if err != nil {
		return err
	}
	if pool.Installation != nil { // DaemonSet mode
		if exists {
			return nil // delivered by the DaemonSet already
		}
		if err := a.waitOSCClean(ctx, log, cr); err != nil {
			return err
		}
		return a.waitShootClean(ctx, cr)
	}
	if !exists { // OSC mode, nothing to hand over
		return nil
	}
	state, err := a.shootOSCState(ctx, cr)
	if err != nil {
		return err
	}
	if !state.OSC.Carries() {
		return &reconcilerutils.RequeueAfterError{RequeueAfter: switchPoll, Cause: fmt.Errorf(
			"delivery mode %s: worker pool %q keeps its installation DaemonSet until the pool's OperatingSystemConfig in the shoot delivers gVisor "+
				"(%s); the extension's webhook adds it when gardenlet next writes the OSC: annotate the Shoot with gardener.cloud/operation=reconcile",
			delivery.OperatingSystemConfig, cr.Spec.WorkerPool.Name, describe(state))}
	}
	log.Info("Handing the pool over to gardener-node-agent: deleting its installation ManagedResource without uninstalling",
		"managedResource", name, "oscSecret", state.SecretName)
	return a.deleteAndRequeue(ctx, cr, []string{name})
}

// managedResourceExists reports whether the ManagedResource exists (live read: the switch must not act on a stale
// cache).
func (a *Actuator) managedResourceExists(ctx context.Context, namespace, name string) (bool, error) {
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := a.apiReader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, mr); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading ManagedResource %s/%s: %w", namespace, name, err)
	}
	return true, nil
}

// waitOSCClean returns nil when no reconcile OSC of cr's pool in the seed carries an entry of ours, else a
// RequeueAfterError naming them. A seed without the OSC resource (no Gardener OSCs at all) has none. When the only
// carrying OSC carries just the remove entry, it records when every node applied it (deliveryswitch_removalrecord.go).
func (a *Actuator) waitOSCClean(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime) error {
	list := &extensionsv1alpha1.OperatingSystemConfigList{}
	if err := a.apiReader.List(ctx, list, client.InNamespace(cr.Namespace), client.MatchingLabels{v1beta1constants.LabelWorkerPool: cr.Spec.WorkerPool.Name}); err != nil {
		if meta.IsNoMatchError(err) {
			return nil
		}
		return fmt.Errorf("listing the OperatingSystemConfigs of worker pool %q in %s: %w", cr.Spec.WorkerPool.Name, cr.Namespace, err)
	}
	var carrying []string
	var removalOnly *extensionsv1alpha1.OperatingSystemConfig // the last carrying OSC, if it carries only the remove entry
	for i := range list.Items {
		osc := &list.Items[i]
		if osc.Spec.Purpose != extensionsv1alpha1.OperatingSystemConfigPurposeReconcile {
			continue
		}
		if s := oscstate.Classify(osc); !s.Clean() {
			carrying = append(carrying, fmt.Sprintf("%s (entry %s, %d file(s) of ours%s)", osc.Name, s.Entry, len(s.Files), unlabelled(osc)))
			removalOnly = nil
			if s.Entry == oscstate.Remove && len(s.Files) == 0 {
				removalOnly = osc
			}
		}
	}
	if len(carrying) == 0 {
		return nil
	}
	progress := "docs/delivery-modes.md says when the remove entry goes"
	if len(carrying) == 1 && removalOnly != nil {
		p, err := a.removalProgress(ctx, log, cr, removalOnly)
		if err != nil {
			return err
		}
		progress = p
	}
	return &reconcilerutils.RequeueAfterError{RequeueAfter: switchPoll, Cause: fmt.Errorf(
		"delivery mode %s: worker pool %q gets its installation DaemonSet only once gardener-node-agent has taken gVisor off its nodes and the "+
			"pool's OperatingSystemConfig carries nothing of gVisor any more; still carrying: %s. The webhook replaces gVisor by a remove entry "+
			"when gardenlet next writes the OSC (annotate the Shoot with gardener.cloud/operation=reconcile); %s",
		delivery.DaemonSet, cr.Spec.WorkerPool.Name, strings.Join(carrying, "; "), progress)}
}

// unlabelled is, for messages, the fix for an OSC that carries an entry of ours without the webhook's label: in the
// DaemonSet mode kube-apiserver sends the webhook only labelled OSCs (oscwebhook.ObjectSelector), so nothing would
// ever take the entry back. Only an OSC mutated before the label existed can be in that state.
func unlabelled(osc *extensionsv1alpha1.OperatingSystemConfig) string {
	if osc.Labels[oscwebhook.LabelEntry] == "true" {
		return ""
	}
	return fmt.Sprintf("; it lacks label %s=true, without which the webhook is not called for it in the %s mode: "+
		"kubectl label operatingsystemconfig -n %s %s %s=true", oscwebhook.LabelEntry, delivery.DaemonSet, osc.Namespace, osc.Name, oscwebhook.LabelEntry)
}

// describe says what the pool's OSC secret carries, for messages.
func describe(s *oscstate.Pool) string {
	if s.SecretName == "" {
		return "the pool has no OSC secret in the shoot's kube-system yet"
	}
	return fmt.Sprintf("secret kube-system/%s has entry %s and %d file(s) of ours; %d of %d node(s) applied it",
		s.SecretName, s.OSC.Entry, len(s.OSC.Files), len(s.Nodes)-len(s.Pending()), len(s.Nodes))
}

// shootOSCState reads the pool's OSC state in cr's shoot, through the shoot access secret gardenlet keeps in the
// shoot namespace (as the health checks do).
func (a *Actuator) shootOSCState(ctx context.Context, cr *extensionsv1alpha1.ContainerRuntime) (*oscstate.Pool, error) {
	shoot, err := a.shoots.Client(ctx, cr.Namespace)
	if err != nil {
		return nil, err
	}
	return oscstate.Read(ctx, shoot, cr.Spec.WorkerPool.Name)
}

// daemonSetUninstall renders the pool's installation chart in uninstall mode as the DaemonSet mode does, for a pool
// whose installation ManagedResource is still there in the OSC mode (ContainerRuntime deleted before the
// handover): the DaemonSet's files have no other owner yet, so they are removed the DaemonSet's way.
func (a *Actuator) daemonSetUninstall(cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) (render.PoolObjects, error) {
	settings := a.settings.Render
	settings.DeliveryMode = delivery.DaemonSet
	in := shootInput(cluster, cr)
	in.Uninstall = true
	out, err := a.renderer.Shoot(settings, in)
	if err != nil {
		return render.PoolObjects{}, err
	}
	return out.Pools[0], nil
}
