// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"testing"
	"time"
)

func TestRemovedManagedResources(t *testing.T) {
	var r removedManagedResources
	if r.has("ns", "mr") {
		t.Fatal("an empty record has an entry")
	}
	r.add("ns", "mr")
	if !r.has("ns", "mr") || r.has("ns", "other") || r.has("other", "mr") {
		t.Fatal("want exactly ns/mr recorded")
	}
	r.forget("ns", "mr") // deployed again
	if r.has("ns", "mr") {
		t.Fatal("a ManagedResource deployed again is still recorded as removed")
	}
	r.add("ns", "old")
	r.at[removedKey("ns", "old")] = time.Now().Add(-removedTTL - time.Minute)
	if r.has("ns", "old") {
		t.Fatal("an entry past removedTTL still counts")
	}
	r.add("ns", "new") // sweeps
	if _, kept := r.at[removedKey("ns", "old")]; kept || len(r.at) != 1 {
		t.Fatalf("an add does not sweep entries past removedTTL: %v", r.at)
	}
}
