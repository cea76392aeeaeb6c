// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"sync"
	"time"
)

// removedManagedResources remembers the ManagedResources (namespace/name) this process deleted together with their
// Secrets (deleteAndRequeue), so that the Delete passes after their removal find them gone in the cache without a
// live read and do not delete their Secrets again: the last pass of every pool, and the shoot-wide ManagedResource
// that each of a shoot's deleting pools looks for, cost two to five requests each without it (BENCHMARKS.md,
// "Seed scale").
//
// Why a cache miss then means gone: the live reads guard against a cache that has not seen a ManagedResource yet
// (created a moment ago), which would otherwise be left behind; one this process deleted was in the cache, and its
// disappearing from there is the informer's delete event. A ManagedResource deployed again is forgotten here
// first (deployForShoot), and a new process starts with nothing, so it reads live as before.
type removedManagedResources struct {
	mu sync.Mutex
	at map[string]time.Time
}

// removedTTL bounds how long an entry is kept: far longer than a pool's Delete (bounded by the uninstall and the
// delete-wait timeouts), so that the map does not grow with every ManagedResource the process ever removed.
const removedTTL = 2 * time.Hour

func removedKey(namespace, name string) string { return namespace + "/" + name }

func (r *removedManagedResources) add(namespace, name string) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at == nil {
		r.at = map[string]time.Time{}
	}
	for k, t := range r.at {
		if now.Sub(t) > removedTTL {
			delete(r.at, k)
		}
	}
	r.at[removedKey(namespace, name)] = now
}

func (r *removedManagedResources) has(namespace, name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.at[removedKey(namespace, name)]
	return ok && time.Since(t) <= removedTTL
}

func (r *removedManagedResources) forget(namespace, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.at, removedKey(namespace, name))
}
