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
	"sigs.k8s.io/controller-runtime/pkg/predicate"

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
	return register(mgr, cfg, checks)
}

// register is the library's DefaultRegistration with one change: the event filter (reconcileStarted instead of
// the library's GenerationChangedPredicate, which DefaultRegistration always applies and would drop the status
// update that starts the checks). Everything else is the library's: its reconciler, its actuator, the type filter
// and the Cluster watch that stops the checks while the shoot is hibernated.
func register(mgr manager.Manager, cfg Config, checks []healthcheck.ConditionTypeToHealthCheck) error {
	kind := extensionsv1alpha1.SchemeGroupVersion.WithKind(extensionsv1alpha1.ContainerRuntimeResource)
	object := func() extensionsv1alpha1.Object { return &extensionsv1alpha1.ContainerRuntime{} }
	opts := cfg.Controller
	opts.RecoverPanic = new(true) // as DefaultRegistration sets it
	args := healthcheck.AddArgs{
		ControllerOptions:       opts,
		Predicates:              []predicate.Predicate{reconcileStarted()},
		Type:                    containerruntime.Type,
		SyncPeriod:              metav1.Duration{Duration: cfg.SyncPeriod},
		GetExtensionObjListFunc: func() client.ObjectList { return &extensionsv1alpha1.ContainerRuntimeList{} },
	}
	if err := args.RegisterExtension(object, conditionTypes(checks), kind, nil); err != nil {
		return fmt.Errorf("healthcheck controller: registering ContainerRuntime: %w", err)
	}
	actuator := healthcheck.NewActuator(mgr, args.Type, kind.Kind, object, checks, extensionsconfigv1alpha1.RESTOptions{}, nil)
	return healthcheck.Register(mgr, args, actuator)
}

// conditionTypes are the distinct condition types of checks, in their order (the library's own list of them is
// unexported).
func conditionTypes(checks []healthcheck.ConditionTypeToHealthCheck) []string {
	var types []string
	seen := map[string]bool{}
	for _, c := range checks {
		if !seen[c.ConditionType] {
			seen[c.ConditionType] = true
			types = append(types, c.ConditionType)
		}
	}
	return types
}
