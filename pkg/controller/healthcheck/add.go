// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	extensionsconfigv1alpha1 "github.com/gardener/gardener/extensions/pkg/apis/config/v1alpha1"
	"github.com/gardener/gardener/extensions/pkg/controller/healthcheck"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/shootclient"
)

// ControllerName is the name for --controllers / --disable-controllers (the library's name, as in every extension).
const ControllerName = healthcheck.ControllerName

// DefaultSyncPeriod is how often every ContainerRuntime is checked; Gardener's providers use the same default.
const DefaultSyncPeriod = 30 * time.Second

// Config configures the health-check controller.
type Config struct {
	// Controller are the controller-runtime options (MaxConcurrentReconciles).
	Controller controller.Options
	// SyncPeriod is how often each ContainerRuntime's conditions are recomputed.
	SyncPeriod time.Duration
	// ShootClients are the process's shoot clients, shared with the ContainerRuntime controller; nil: a cache of
	// its own.
	ShootClients *shootclient.Cache
	// Mode is the delivery mode (docs/delivery-modes.md); it selects the checks (oscmode.go).
	Mode delivery.Mode
}

// AddToManager registers the health checks of ContainerRuntimes of type gvisor with the library.
func AddToManager(mgr manager.Manager, cfg Config) error {
	if cfg.SyncPeriod <= 0 {
		return fmt.Errorf("healthcheck controller: the sync period must be positive, got %s", cfg.SyncPeriod)
	}
	seed := mgr.GetClient()
	shoots := cfg.ShootClients
	if shoots == nil {
		shoots = shootclient.NewCache(seed)
	}
	reads := newShootReads(seed, shoots) // shared by the checks of a round (shootreads.go)
	checks := []healthcheck.ConditionTypeToHealthCheck{
		{
			ConditionType: string(gardencorev1beta1.ShootSystemComponentsHealthy),
			HealthCheck:   managedResourceCheck{seed: seed, name: func(*extensionsv1alpha1.ContainerRuntime) string { return containerruntime.ManagedResourceName }},
		},
		{
			ConditionType: string(gardencorev1beta1.ShootSystemComponentsHealthy),
			HealthCheck: managedResourceCheck{seed: seed, name: func(cr *extensionsv1alpha1.ContainerRuntime) string {
				return containerruntime.InstallationManagedResourceName(cr.Spec.WorkerPool.Name)
			}},
		},
		{
			ConditionType: string(gardencorev1beta1.ShootEveryNodeReady),
			HealthCheck:   nodesCheck(reads),
		},
		{
			ConditionType: ConditionBinDirClean, // stays on the ContainerRuntime (bindir.go)
			HealthCheck:   binDirCheck(reads),
		},
	}
	if cfg.Mode == delivery.OperatingSystemConfig {
		checks = oscModeChecks(seed, reads)
	}
	return healthcheck.DefaultRegistration(
		containerruntime.Type,
		extensionsv1alpha1.SchemeGroupVersion.WithKind(extensionsv1alpha1.ContainerRuntimeResource),
		func() client.ObjectList { return &extensionsv1alpha1.ContainerRuntimeList{} },
		func() extensionsv1alpha1.Object { return &extensionsv1alpha1.ContainerRuntime{} },
		mgr,
		healthcheck.DefaultAddArgs{
			Controller:        cfg.Controller,
			HealthCheckConfig: extensionsconfigv1alpha1.HealthCheckConfig{SyncPeriod: metav1.Duration{Duration: cfg.SyncPeriod}},
		},
		nil,
		checks,
		nil,
	)
}
