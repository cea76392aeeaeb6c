// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gardener/gardener/extensions/pkg/controller/healthcheck"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
)

// oscModeChecks are the checks of the OperatingSystemConfig delivery mode: there is no installation
// ManagedResource and no installation pod, so SystemComponentsHealthy is the RuntimeClass's ManagedResource and
// EveryNodeReady comes from gardener-node-agent's reports (oscNodesCheck).
func oscModeChecks(seed client.Client, reads *shootReads) []healthcheck.ConditionTypeToHealthCheck {
	return []healthcheck.ConditionTypeToHealthCheck{
		{
			ConditionType: string(gardencorev1beta1.ShootSystemComponentsHealthy),
			HealthCheck:   managedResourceCheck{seed: seed, name: func(*extensionsv1alpha1.ContainerRuntime) string { return containerruntime.ManagedResourceName }},
		},
		{
			ConditionType: string(gardencorev1beta1.ShootEveryNodeReady),
			HealthCheck:   oscNodesCheck{seed: seed, reads: reads},
		},
	}
}
