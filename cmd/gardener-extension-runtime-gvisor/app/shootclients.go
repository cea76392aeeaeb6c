// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/shootclient"
)

// sharedShootClients builds the shoot-client cache of a manager once, for whichever controller is added first
// (--controllers may leave out either).
type sharedShootClients struct {
	once  sync.Once
	cache *shootclient.Cache
}

func (s *sharedShootClients) of(mgr manager.Manager) *shootclient.Cache {
	s.once.Do(func() { s.cache = shootclient.NewCache(mgr.GetClient()) })
	return s.cache
}
