// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import "testing"

// TestSeedHealthSyncPeriod: Gardener's component gives the benchmark's gardener-resource-manager a health sync
// period; a release that stops setting one fails here rather than in a benchmark run.
func TestSeedHealthSyncPeriod(t *testing.T) {
	p, err := seedHealthSyncPeriod()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gardener-resource-manager health sync period: %s", p)
}
