// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gardener/gardener/pkg/utils/managedresources"
)

// otherComponentsPerShoot is how many ManagedResources of other components each shoot namespace holds beside the
// gvisor ones. On a seed a shoot namespace has some twenty (gardenlet's shoot-core-* and the provider, networking,
// DNS and OS extensions'); ten keep the run's gardener-resource-manager load moderate on two cores and still
// show what a controller pays for ManagedResources it does not own: every one is created, applied and given
// status by gardener-resource-manager while the controllers run, and a controller watching all ManagedResources
// receives and caches each of those writes.
const otherComponentsPerShoot = 10

// createOtherComponents writes namespace's other components' ManagedResources as gardenlet does (Gardener's
// helper, origin gardener), each with an empty content Secret: gardener-resource-manager applies, health-checks and
// deletes them like any other, and they touch nothing the gvisor controllers read in the shoot.
func createOtherComponents(ctx context.Context, c client.Client, namespace string) error {
	for i := range otherComponentsPerShoot {
		name := fmt.Sprintf("shoot-core-seedbench-%02d", i)
		if err := managedresources.CreateForShoot(ctx, c, namespace, name, managedresources.LabelValueGardener, false, map[string][]byte{}); err != nil {
			return fmt.Errorf("creating ManagedResource %s/%s: %w", namespace, name, err)
		}
	}
	return nil
}
