// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import (
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// TestCountRequests: requests are counted for the named users only, by the phase they were received in, under
// client, verb and resource/subresource; the table divides by the pools.
func TestCountRequests(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	event := func(user, verb, resource, sub string, at time.Duration) envtest.AuditEvent {
		var e envtest.AuditEvent
		e.User.Username, e.Verb, e.ObjectRef.Resource, e.ObjectRef.Subresource = user, verb, resource, sub
		e.RequestReceivedTimestamp = t0.Add(at)
		return e
	}
	phases := []phase{{"start", t0, t0.Add(time.Second)}, {"create", t0.Add(time.Second), t0.Add(2 * time.Second)},
		{"steady", t0.Add(2 * time.Second), t0.Add(3 * time.Second)}, {"delete", t0.Add(3 * time.Second), t0.Add(4 * time.Second)}}
	counts := countRequests([]envtest.AuditEvent{
		event("ours-1", "list", "containerruntimes", "", 0),
		event("ours-1", "patch", "containerruntimes", "status", 1500*time.Millisecond),
		event("ours-1", "patch", "containerruntimes", "status", 1600*time.Millisecond),
		event("ours-1-shoot", "get", "daemonsets", "", 2500*time.Millisecond),
		event("admin", "get", "daemonsets", "", 2500*time.Millisecond),
		event("ours-1", "watch", "managedresources", "", 5*time.Second), // after the last phase: the stop, counted to delete
	}, map[string]string{"ours-1": "seed", "ours-1-shoot": "shoot"}, phases)
	want := map[string]map[requestKey]int{
		"start":  {{"seed", "list", "containerruntimes"}: 1},
		"create": {{"seed", "patch", "containerruntimes/status"}: 2},
		"steady": {{"shoot", "get", "daemonsets"}: 1},
		"delete": {{"seed", "watch", "managedresources"}: 1},
	}
	for ph, keys := range want {
		for k, n := range keys {
			if counts[ph][k] != n {
				t.Errorf("%s %s: %d, want %d", ph, k, counts[ph][k], n)
			}
		}
		if len(counts[ph]) != len(keys) {
			t.Errorf("%s: %v, want %v", ph, counts[ph], keys)
		}
	}
	table := requestTable(2, []string{"ours"}, map[string]requestCounts{"ours": counts})
	if !strings.Contains(table, "| create | seed patch containerruntimes/status | 1.00 |") ||
		!strings.Contains(table, "| **create** | all | **1.00** (0.00 reads, 1.00 writes) |") {
		t.Errorf("table:\n%s", table)
	}
}
