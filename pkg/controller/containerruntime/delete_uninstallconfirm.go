// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	"github.com/gardener/gardener/pkg/utils/kubernetes/health"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// confirmRequeue is how soon a Delete looks again when gardener-resource-manager reports the uninstall done but the
// shoot's DaemonSet does not (yet) agree. No event of ours announces the shoot catching up, and the case is rare
// (one pass per pool in a race), so a short requeue costs little.
const confirmRequeue = 2 * time.Second

// confirmUninstalled checks, in the shoot itself, what gardener-resource-manager's conditions on mr claim: every
// DaemonSet of the pool's ManagedResource runs the uninstall on every node it schedules to, rolled out and Ready.
//
// Why not trust the conditions alone: gardener-resource-manager computes them from its cache of the shoot. Right
// after it applied the uninstall, that cache can still hold the install DaemonSet, fully rolled out, and the
// conditions then say "healthy, not progressing" for content that no node runs yet. Delete woken by that status
// change (delete_watch.go) would remove the pool with runsc still registered on its nodes. One live read per DaemonSet,
// once the conditions say done, closes that window.
func (a *Actuator) confirmUninstalled(ctx context.Context, cr *extensionsv1alpha1.ContainerRuntime, mr *resourcesv1alpha1.ManagedResource) error {
	var daemonSets []client.ObjectKey
	for _, ref := range mr.Status.Resources {
		if ref.Kind == "DaemonSet" && ref.GroupVersionKind().Group == appsv1.GroupName {
			daemonSets = append(daemonSets, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name})
		}
	}
	if len(daemonSets) == 0 {
		return fmt.Errorf("gardener-resource-manager lists no DaemonSet in ManagedResource %s/%s yet", mr.Namespace, mr.Name)
	}
	shoot, err := a.shoots.Client(ctx, cr.Namespace)
	if err != nil {
		return fmt.Errorf("confirming the uninstall in the shoot: %w", err)
	}
	for _, key := range daemonSets {
		ds := &appsv1.DaemonSet{}
		if err := shoot.Get(ctx, key, ds); err != nil {
			if apierrors.IsNotFound(err) {
				return fmt.Errorf("DaemonSet %s is not in the shoot yet", key)
			}
			return fmt.Errorf("reading DaemonSet %s in the shoot: %w", key, err)
		}
		if err := daemonSetUninstalled(ds); err != nil {
			return fmt.Errorf("DaemonSet %s in the shoot: %w", key, err)
		}
	}
	return nil
}

// daemonSetUninstalled: ds runs the uninstall (its pod template carries the uninstall mode label), its controller
// saw that template (observedGeneration), every node it schedules to runs an updated pod, and none is unavailable:
// each node's uninstall pod is Ready, which it only becomes after `gvisor-installer uninstall` succeeded.
func daemonSetUninstalled(ds *appsv1.DaemonSet) error {
	if ds.Spec.Template.Labels[render.ModeLabel] != string(render.ModeUninstall) {
		return errors.New("its pods do not run the uninstall yet (pod template without the uninstall mode label)")
	}
	if progressing, why := health.IsDaemonSetProgressing(ds); progressing {
		return fmt.Errorf("rolling out: %s", why)
	}
	if err := health.CheckDaemonSet(ds); err != nil {
		return err
	}
	if ds.Status.NumberReady < ds.Status.DesiredNumberScheduled {
		return fmt.Errorf("%d of %d node(s) done", ds.Status.NumberReady, ds.Status.DesiredNumberScheduled)
	}
	return nil
}
