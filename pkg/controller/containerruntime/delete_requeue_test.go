// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"strings"
	"testing"
	"time"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
)

// TestRequeueBefore: a wait sleeps safetyRequeue unless a deadline comes first; then it wakes just after it.
func TestRequeueBefore(t *testing.T) {
	if got := requeueBefore(time.Time{}); got != safetyRequeue {
		t.Errorf("no deadline: %s, want %s", got, safetyRequeue)
	}
	if got := requeueBefore(time.Now().Add(-time.Second)); got != safetyRequeue {
		t.Errorf("deadline passed: %s, want %s", got, safetyRequeue)
	}
	if got := requeueBefore(time.Now().Add(2 * safetyRequeue)); got != safetyRequeue {
		t.Errorf("deadline after the safety requeue: %s, want %s", got, safetyRequeue)
	}
	if got := requeueBefore(time.Now().Add(10 * time.Second)); got <= 9*time.Second || got > 10*time.Second+deadlineMargin {
		t.Errorf("deadline in 10s: %s, want just over 10s", got)
	}
}

// TestDeletionReason: gardener-resource-manager's reason is quoted only while it reports the deletion pending or
// failed.
func TestDeletionReason(t *testing.T) {
	mr := func(status gardencorev1beta1.ConditionStatus, reason, message string) *resourcesv1alpha1.ManagedResource {
		return &resourcesv1alpha1.ManagedResource{Status: resourcesv1alpha1.ManagedResourceStatus{Conditions: []gardencorev1beta1.Condition{
			{Type: resourcesv1alpha1.ResourcesApplied, Status: status, Reason: reason, Message: message},
		}}}
	}
	pending := mr(gardencorev1beta1.ConditionFalse, resourcesv1alpha1.ConditionDeletionPending, "Could not clean all old resources:\n  DaemonSet pending")
	if got := deletionReason(pending); !strings.HasPrefix(got, ": Could not clean all old resources: DaemonSet pending") {
		t.Errorf("pending deletion: %q", got)
	}
	if got := deletionReason(mr(gardencorev1beta1.ConditionTrue, "ApplySucceeded", "All resources are applied.")); got != "" {
		t.Errorf("applied: %q", got)
	}
	if got := deletionReason(&resourcesv1alpha1.ManagedResource{}); got != "" {
		t.Errorf("no conditions: %q", got)
	}
}
