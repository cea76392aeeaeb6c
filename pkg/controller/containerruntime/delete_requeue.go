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

// safetyRequeue is how long a waiting Delete sleeps when no event wakes it. The events of its ManagedResources do
// (delete_watch.go): gardener-resource-manager reporting the uninstall's progress, the ManagedResource going away. The
// requeue only covers an event lost (a watch restart) and a pool whose nodes report nothing, and it is at most
// uninstallConditionRefresh, so that the uninstall conditions are refreshed in time (delete_conditions.go).
const safetyRequeue = uninstallConditionRefresh

// requeueBefore is the requeue of a wait with a time-based step at deadline (the uninstall timeout, the bound of
// the wait for a ManagedResource to go): just after the deadline if it comes before the safety requeue, else
// safetyRequeue.
func requeueBefore(deadline time.Time) time.Duration {
	if d := time.Until(deadline); d > 0 && d < safetyRequeue {
		return d + deadlineMargin
	}
	return safetyRequeue
}

// deadlineMargin puts the requeue at a deadline just past it, so that the pass sees the deadline passed.
const deadlineMargin = 100 * time.Millisecond

// deleteAndRequeue deletes the named ManagedResources (and their Secrets) that are not being deleted yet and
// returns nil once all are gone. Until then it returns a RequeueAfterError: cr is requeued without backoff
// (delete_reconciler.go shows the cause in lastError), and woken earlier by the ManagedResource's deletion (delete_watch.go). A
// ManagedResource still there deleteWaitTimeout after its deletion began is reported with gardener-resource-manager's
// reason in lastError (the requeue is set to that moment) and still waited for.
func (a *Actuator) deleteAndRequeue(ctx context.Context, cr *extensionsv1alpha1.ContainerRuntime, names []string) error {
	var waiting, stuck []string
	var bound time.Time // the earliest moment a waiting ManagedResource becomes stuck
	for _, name := range names {
		mr, exists, err := a.readForDeletion(ctx, cr.Namespace, name)
		if err != nil {
			return err
		}
		if (!exists && !a.removed.has(cr.Namespace, name)) || (exists && mr.DeletionTimestamp == nil) {
			// Not found: its Secrets may still be there (a Delete interrupted between the two), DeleteForShoot
			// removes them too, unless this process deleted them already (delete_removedmemory.go). Already deleting: nothing
			// to write again on every requeue.
			if err := managedresources.DeleteForShoot(ctx, a.client, cr.Namespace, name); err != nil {
				return fmt.Errorf("deleting ManagedResource %s/%s: %w", cr.Namespace, name, err)
			}
			a.removed.add(cr.Namespace, name)
		}
		if !exists {
			continue
		}
		if mr.DeletionTimestamp == nil && len(mr.Finalizers) == 0 {
			// Just deleted: a ManagedResource without gardener-resource-manager's finalizer (never picked up) is
			// gone at once, and needs no requeue round to find that out. One with the finalizer cannot be, and its
			// removal wakes the Delete (delete_watch.go).
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
		if until := since.Add(a.settings.DeleteWaitTimeout); time.Now().Before(until) {
			if bound.IsZero() || until.Before(bound) {
				bound = until
			}
			waiting = append(waiting, cr.Namespace+"/"+name)
			continue
		}
		stuck = append(stuck, fmt.Sprintf("ManagedResource %s/%s still exists after %s%s", cr.Namespace, name, a.settings.DeleteWaitTimeout.Round(time.Second), deletionReason(mr)))
	}
	switch {
	case len(stuck) > 0:
		return &reconcilerutils.RequeueAfterError{Cause: fmt.Errorf("%s", strings.Join(stuck, "; ")), RequeueAfter: safetyRequeue}
	case len(waiting) > 0:
		return &reconcilerutils.RequeueAfterError{
			Cause:        fmt.Errorf("waiting for ManagedResource(s) %s to be gone (gardener-resource-manager removes their objects from the shoot)", strings.Join(waiting, ", ")),
			RequeueAfter: requeueBefore(bound),
		}
	}
	return nil
}

// readForDeletion reads ManagedResource name from the cache where that is enough to act on: it is there (it
// exists, and deleting it, or waiting for its removal, which is an event of that cache that wakes the Delete, is
// right whatever its cached state), or it is missing there after this process deleted it (delete_removedmemory.go: gone).
// Otherwise from the API server, because the cache may not have seen it yet, and a ManagedResource missed there
// would not be deleted.
func (a *Actuator) readForDeletion(ctx context.Context, namespace, name string) (*resourcesv1alpha1.ManagedResource, bool, error) {
	key := client.ObjectKey{Namespace: namespace, Name: name}
	mr := &resourcesv1alpha1.ManagedResource{}
	err := a.client.Get(ctx, key, mr)
	switch {
	case err == nil:
		return mr, true, nil
	case apierrors.IsNotFound(err) && a.removed.has(namespace, name):
		return nil, false, nil
	}
	mr = &resourcesv1alpha1.ManagedResource{}
	err = a.apiReader.Get(ctx, key, mr)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, false, fmt.Errorf("reading ManagedResource %s/%s: %w", namespace, name, err)
	}
	return mr, err == nil, nil
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
