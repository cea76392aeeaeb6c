// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// ReasonUninstalling is the reason of the health conditions while gVisor is being removed from the pool's nodes.
const ReasonUninstalling = "Uninstalling"

// uninstallConditionRefresh is how often unchanged uninstall conditions are rewritten anyway: gardenlet treats
// extension conditions not updated for a while (its stale-extension-health-check threshold) as Unknown.
const uninstallConditionRefresh = time.Minute

// healthConditionTypes are the conditions the healthcheck controller (pkg/controller/healthcheck) maintains.
var healthConditionTypes = []gardencorev1beta1.ConditionType{gardencorev1beta1.ShootSystemComponentsHealthy, gardencorev1beta1.ShootEveryNodeReady}

// reportUninstalling sets the health conditions to Progressing, saying that the pool is being uninstalled and how
// far it got. Gardener's health-check library skips ContainerRuntimes that are being deleted, so without this the
// conditions would keep claiming the installation's health (and go stale) during the removal. It writes only when
// something changed, or the last write is older than uninstallConditionRefresh. It only sets them on cr: whoever
// called the Delete writes them (deleteDeferringStatus).
func (a *Actuator) reportUninstalling(cr *extensionsv1alpha1.ContainerRuntime, detail string) error {
	message := fmt.Sprintf("gVisor is being removed from the nodes of worker pool %q (the ContainerRuntime is being deleted): %s", cr.Spec.WorkerPool.Name, detail)
	conditions := cr.Status.Conditions
	changed := false
	for _, t := range healthConditionTypes {
		old := v1beta1helper.GetCondition(conditions, t)
		if old != nil && old.Status == gardencorev1beta1.ConditionProgressing && old.Reason == ReasonUninstalling && old.Message == message &&
			time.Since(old.LastUpdateTime.Time) < uninstallConditionRefresh {
			continue
		}
		b, err := v1beta1helper.NewConditionBuilder(t)
		if err != nil {
			return err
		}
		if old != nil {
			b.WithOldCondition(*old)
		}
		c, _ := b.WithStatus(gardencorev1beta1.ConditionProgressing).WithReason(ReasonUninstalling).WithMessage(message).WithClock(clock.RealClock{}).Build()
		conditions = v1beta1helper.MergeConditions(conditions, c)
		changed = true
	}
	if changed {
		cr.Status.Conditions = conditions
	}
	return nil
}

// writeConditions writes cr's conditions if they differ from before, the conditions cr had when the Delete began:
// what Delete reports when the library's reconciler called it, which writes only lastOperation and lastError.
func (a *Actuator) writeConditions(ctx context.Context, cr *extensionsv1alpha1.ContainerRuntime, before []gardencorev1beta1.Condition) error {
	if apiequality.Semantic.DeepEqual(before, cr.Status.Conditions) {
		return nil
	}
	base := cr.DeepCopy()
	base.Status.Conditions = before
	if err := client.IgnoreNotFound(a.client.Status().Patch(ctx, cr, client.MergeFrom(base))); err != nil {
		return fmt.Errorf("reporting the uninstall in the conditions of ContainerRuntime %s/%s: %w", cr.Namespace, cr.Name, err)
	}
	return nil
}
