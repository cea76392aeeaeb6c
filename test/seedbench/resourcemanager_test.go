// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/gardener/gardener/pkg/component/gardener/resourcemanager"
	"github.com/gardener/gardener/pkg/component/shared"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// shootWideManagedResource is the name both controllers give a shoot's shoot-wide ManagedResource (the
// RuntimeClass "gvisor" and what goes with it).
const shootWideManagedResource = "extension-runtime-gvisor"

// startResourceManager is test/envtest's gardener-resource-manager (managedresource, health, progressing and
// garbage-collector controllers in-process, the one API server as source and target) with one difference: it
// applies the pools' installation ManagedResources (a ConfigMap and a DaemonSet named after the pool, disjoint
// across shoots) but not the shoot-wide ones. On a seed every shoot has its own cluster; here all 50 shoots share
// one, so their RuntimeClass "gvisor" is one object: applied by 50 ManagedResources, one shoot's deletion of it
// is undone at once by the others (their health watch sees it gone, they re-apply), and a Delete that waits for
// the shoot-wide ManagedResource to go (the field's does, for up to 2 minutes) waits for nothing real. Unapplied,
// a shoot-wide ManagedResource has no finalizer and goes at once, for both controllers alike.
//
// Its health controller rechecks every ManagedResource at the period gardenlet gives a shoot's
// gardener-resource-manager (Gardener's own defaults, seedHealthSyncPeriod): each recheck that changes a
// condition's time is a status update both controllers may see.
func startResourceManager(ctx context.Context, cfg *rest.Config) (*envtest.ResourceManager, error) {
	period, err := seedHealthSyncPeriod()
	if err != nil {
		return nil, err
	}
	return envtest.StartResourceManagerWith(ctx, cfg, envtest.ResourceManagerOptions{
		Log:              logr.Discard(),
		Apply:            predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() != shootWideManagedResource }),
		HealthSyncPeriod: period,
	})
}

// seedHealthSyncPeriod is the health sync period of the gardener-resource-manager gardenlet deploys into a shoot
// namespace of the seed (the one that applies the extensions' ManagedResources), as Gardener's component sets it.
func seedHealthSyncPeriod() (time.Duration, error) {
	grm, err := shared.NewTargetGardenerResourceManager(nil, "shoot--bench--s00", nil, resourcemanager.Values{})
	if err != nil {
		return 0, fmt.Errorf("gardener-resource-manager values from Gardener: %w", err)
	}
	p := grm.GetValues().HealthSyncPeriod
	if p == nil || p.Duration <= 0 {
		return 0, fmt.Errorf("gardener-resource-manager values from Gardener: no health sync period")
	}
	return p.Duration, nil
}
