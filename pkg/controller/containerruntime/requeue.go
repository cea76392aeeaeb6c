// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"
	"github.com/gardener/gardener/pkg/utils/managedresources"
)

// Requeue intervals of a Delete that waits: quickPollInterval while the wait is young (a pool without nodes, or a
// quick rollout, is done in about a second, the common case), pollInterval after quickPollWindow.
const (
	quickPollInterval = time.Second
	quickPollWindow   = 10 * time.Second
	pollInterval      = 5 * time.Second
)

// requeueAfter is the requeue interval of a wait that began at start.
func requeueAfter(start time.Time) time.Duration {
	if time.Since(start) < quickPollWindow {
		return quickPollInterval
	}
	return pollInterval
}

// deleteAndRequeue deletes the named ManagedResources (and their Secrets) that are not being deleted yet and
// returns nil once all are gone. Until then it returns a RequeueAfterError: the library requeues cr without
// backoff and shows the cause in lastError. A ManagedResource still there deleteWaitTimeout after its deletion
// began keeps being polled (pollInterval), with gardener-resource-manager's reason in lastError.
func (a *Actuator) deleteAndRequeue(ctx context.Context, cr *extensionsv1alpha1.ContainerRuntime, names []string) error {
	var waiting, stuck []string
	start := time.Now()
	for _, name := range names {
		mr := &resourcesv1alpha1.ManagedResource{}
		err := a.apiReader.Get(ctx, client.ObjectKey{Namespace: cr.Namespace, Name: name}, mr)
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("reading ManagedResource %s/%s: %w", cr.Namespace, name, err)
		}
		exists := err == nil
		if !exists || mr.DeletionTimestamp == nil {
			// Not found: its Secrets may still be there (a Delete interrupted between the two), DeleteForShoot
			// removes them too. Already deleting: nothing to write again on every requeue.
			if err := managedresources.DeleteForShoot(ctx, a.client, cr.Namespace, name); err != nil {
				return fmt.Errorf("deleting ManagedResource %s/%s: %w", cr.Namespace, name, err)
			}
		}
		if !exists {
			continue
		}
		if mr.DeletionTimestamp == nil {
			// Just deleted: a ManagedResource without gardener-resource-manager's finalizer (never picked up) is
			// gone at once, and needs no requeue round to find that out.
			if err := a.apiReader.Get(ctx, client.ObjectKey{Namespace: cr.Namespace, Name: name}, mr); apierrors.IsNotFound(err) {
				continue
			} else if err != nil {
				return fmt.Errorf("reading ManagedResource %s/%s: %w", cr.Namespace, name, err)
			}
		}
		since := time.Now()
		if mr.DeletionTimestamp != nil {
			since = mr.DeletionTimestamp.Time
		}
		if since.Before(start) {
			start = since
		}
		if time.Since(since) < a.settings.DeleteWaitTimeout {
			waiting = append(waiting, cr.Namespace+"/"+name)
			continue
		}
		stuck = append(stuck, fmt.Sprintf("ManagedResource %s/%s still exists after %s%s", cr.Namespace, name, a.settings.DeleteWaitTimeout.Round(time.Second), deletionReason(mr)))
	}
	switch {
	case len(stuck) > 0:
		return &reconcilerutils.RequeueAfterError{Cause: fmt.Errorf("%s", strings.Join(stuck, "; ")), RequeueAfter: pollInterval}
	case len(waiting) > 0:
		return &reconcilerutils.RequeueAfterError{
			Cause:        fmt.Errorf("waiting for ManagedResource(s) %s to be gone (gardener-resource-manager removes their objects from the shoot)", strings.Join(waiting, ", ")),
			RequeueAfter: requeueAfter(start),
		}
	}
	return nil
}

// deletionReason is gardener-resource-manager's reason why a ManagedResource's objects are not deleted yet (its
// ResourcesApplied condition while deleting), as ": <message>", or "".
func deletionReason(mr *resourcesv1alpha1.ManagedResource) string {
	c := v1beta1helper.GetCondition(mr.Status.Conditions, resourcesv1alpha1.ResourcesApplied)
	if c == nil || c.Status == gardencorev1beta1.ConditionTrue || c.Message == "" {
		return ""
	}
	if c.Reason != resourcesv1alpha1.ConditionDeletionFailed && c.Reason != resourcesv1alpha1.ConditionDeletionPending {
		return ""
	}
	return ": " + strings.Join(strings.Fields(c.Message), " ")
}
