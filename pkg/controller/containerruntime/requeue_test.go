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

// TestRequeueAfter: quick requeues while a wait is young, slower ones after quickPollWindow.
func TestRequeueAfter(t *testing.T) {
	if got := requeueAfter(time.Now()); got != quickPollInterval {
		t.Errorf("young wait: %s, want %s", got, quickPollInterval)
	}
	if got := requeueAfter(time.Now().Add(-quickPollWindow - time.Second)); got != pollInterval {
		t.Errorf("old wait: %s, want %s", got, pollInterval)
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
