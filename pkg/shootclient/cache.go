// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package shootclient

import (
	"context"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// IdleTimeout is how long Cache keeps a shoot's client that nobody asked for (a shoot gone from the seed).
const IdleTimeout = 10 * time.Minute

// Cache keeps one client per shoot namespace for as long as the shoot access secret it was built from is
// unchanged (AccessSecretVersion: same name and resourceVersion; a token rotation or a new CA changes it).
//
// Why: New reads the access secret twice (gardener-internal, then gardener) and its client opens a new TLS
// connection to the shoot's API server. The health checks (every pool, every period) and the Delete's
// confirmation of an uninstall (every pool) each did that per call; on a seed with 500 pools that was most of the
// seed's Secret GETs and a TLS handshake per pool and period (BENCHMARKS.md, "Seed scale"). With one Cache per
// process a call costs one Secret GET and reuses the shoot's connections.
//
// A secret gone (or unreadable) is an error, as with New, and drops the kept client.
type Cache struct {
	seed client.Client

	mu      sync.Mutex
	clients map[string]cached // by shoot namespace
}

type cached struct {
	client  client.Client
	secret  string // AccessSecretVersion it was built from
	lastUse time.Time
}

// NewCache returns an empty Cache reading the access secrets through seed. The seed client must read Secrets
// from the API server (a cache of the seed's Secrets could keep a rotated token's client a moment longer; the
// extension's manager does not cache Secrets).
func NewCache(seed client.Client) *Cache {
	return &Cache{seed: seed, clients: map[string]cached{}}
}

// Client returns the client of the shoot in namespace: the kept one while its access secret is unchanged, else a
// new one (built with New), which it keeps.
func (c *Cache) Client(ctx context.Context, namespace string) (client.Client, error) {
	version, err := AccessSecretVersion(ctx, c.seed, namespace)
	now := time.Now()
	c.mu.Lock()
	for ns, k := range c.clients {
		if now.Sub(k.lastUse) > IdleTimeout {
			delete(c.clients, ns)
		}
	}
	k, ok := c.clients[namespace]
	if err != nil {
		delete(c.clients, namespace)
	} else if ok && k.secret == version {
		k.lastUse = now
		c.clients[namespace] = k
	}
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if ok && k.secret == version {
		return k.client, nil
	}
	// Built outside the lock: building reads the seed and must not hold up the callers for other shoots. Two
	// callers racing here build two clients and the later one is kept.
	shoot, err := New(ctx, c.seed, namespace)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.clients[namespace] = cached{client: shoot, secret: version, lastUse: now}
	c.mu.Unlock()
	return shoot, nil
}
