// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// PoolContainerRuntime is the ContainerRuntime the webhook builds for pool's gvisor runtime from the cluster's
// Shoot (nil if the pool has none), for the test that holds it to gardenlet's.
func PoolContainerRuntime(cluster *extensionscontroller.Cluster, pool string) *extensionsv1alpha1.ContainerRuntime {
	pr, ok := gvisorPool(Options{}, cluster, pool)
	if !ok {
		return nil
	}
	return pr.cr
}

// MetricServerPeers is metricServerPeers, for its table test.
var MetricServerPeers = metricServerPeers
