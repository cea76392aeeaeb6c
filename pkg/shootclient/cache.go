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
// Why: New reads the access secret (gardener-internal, or gardener without it) and its client opens a new TLS
// connection to the shoot's API server. The health checks (every pool, every period) and the Delete's
// confirmation of an uninstall (every pool) each did that per call; on a seed with 500 pools that was most of the
// seed's Secret GETs and a TLS handshake per pool and period (BENCHMARKS.md, "Seed scale"). With one Cache per
// process a call costs one Secret GET and reuses the shoot's connections.
//
// The secret is read again at most every SecretRecheck per shoot: the checks of a shoot's pools in one health-check
// round (and the confirmations of a shoot's pools being deleted together) then share one read.
//
// A secret gone (or unreadable) is an error at its next read, as with New, and drops the kept client.
type Cache struct {
	seed    client.Client
	recheck time.Duration

	mu      sync.Mutex
	clients map[string]cached // by shoot namespace
}

// SecretRecheck is how long a kept client is handed out without reading its access secret again. A client that
// much older than a rotated secret still works: gardener-resource-manager's token requestor renews the token
// long before the old one expires, and a CA rotation keeps the old CA in the bundle for a whole phase.
const SecretRecheck = 10 * time.Second

type cached struct {
	client  client.Client
	secret  string    // AccessSecretVersion it was built from
	checked time.Time // when that version was last read
	lastUse time.Time
}

// NewCache returns an empty Cache reading the access secrets through seed. The seed client must read Secrets
// from the API server (a cache of the seed's Secrets could keep a rotated token's client a moment longer; the
// extension's manager does not cache Secrets).
func NewCache(seed client.Client) *Cache {
	return &Cache{seed: seed, recheck: SecretRecheck, clients: map[string]cached{}}
}

// Client returns the client of the shoot in namespace: the kept one while its access secret is unchanged, else a
// new one (built with New), which it keeps.
func (c *Cache) Client(ctx context.Context, namespace string) (client.Client, error) {
	if kept := c.fresh(namespace); kept != nil {
		return kept, nil
	}
	version, err := AccessSecretVersion(ctx, c.seed, namespace)
	now := time.Now()
	c.mu.Lock()
	k, ok := c.clients[namespace]
	if err != nil {
		delete(c.clients, namespace)
	} else if ok && k.secret == version {
		k.lastUse, k.checked = now, now
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
	c.clients[namespace] = cached{client: shoot, secret: version, checked: now, lastUse: now}
	c.mu.Unlock()
	return shoot, nil
}

// fresh returns the kept client of namespace if its secret was read within the recheck time, else nil. On the way
// it drops the clients nobody asked for within IdleTimeout.
func (c *Cache) fresh(namespace string) client.Client {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for ns, k := range c.clients {
		if now.Sub(k.lastUse) > IdleTimeout {
			delete(c.clients, ns)
		}
	}
	k, ok := c.clients[namespace]
	if !ok || now.Sub(k.checked) >= c.recheck {
		return nil
	}
	k.lastUse = now
	c.clients[namespace] = k
	return k.client
}
