// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	extensionscontainerruntimecontroller "github.com/gardener/gardener/extensions/pkg/controller/containerruntime"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	"github.com/gardener/gardener/pkg/controllerutils"
	predicateutils "github.com/gardener/gardener/pkg/controllerutils/predicate"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/shootclient"
)

// Config configures the controller.
type Config struct {
	// Controller are the controller-runtime options (MaxConcurrentReconciles).
	Controller controller.Options
	// IgnoreOperationAnnotation reconciles on every change instead of only on gardener.cloud/operation.
	IgnoreOperationAnnotation bool
	// Renderer renders the charts (with the images resolved at start).
	Renderer *render.Renderer
	// Settings are the operator's settings, passed to the Actuator unchanged.
	Settings Settings
	// ShootClients are the process's shoot clients, shared with the health checks; nil: a cache of its own.
	ShootClients *shootclient.Cache
}

// AddToManager adds the ContainerRuntime controller for type gvisor: the extension library's controller
// (extensionscontainerruntimecontroller.Add) built here with the same name, options, watch and
// predicates, plus a watch on ManagedResources that wakes a waiting Delete (delete_watch.go), and the library's reconciler
// wrapped so that a Delete's waits write nothing when nothing changed (delete_reconciler.go).
//
// Built here rather than through the library's Add because Add has no way to add a watch (AddArgs has none, and
// the controller it builds is not returned); NewReconciler, the predicates and the mapper it uses are exported,
// so everything but the builder call stays the library's.
func AddToManager(ctx context.Context, mgr manager.Manager, cfg Config) error {
	if cfg.Renderer == nil {
		return fmt.Errorf("containerruntime controller: no renderer configured")
	}
	actuator := NewActuator(ActuatorOptions{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Renderer:  cfg.Renderer,
		Recorder:  mgr.GetEventRecorder("gardener-extension-runtime-gvisor"),
		Settings:  cfg.Settings,
		// The Delete's uninstall confirmation and the OSC-mode handover read the shoot through it.
		ShootClients: cfg.ShootClients,
	})
	// Every operation counted by result on controller-runtime's registry (opmetrics.go).
	counted, err := countOperations(actuator)
	if err != nil {
		return err
	}
	predicates := predicateutils.AddTypeAndClassPredicates(
		extensionscontainerruntimecontroller.DefaultPredicates(ctx, mgr, cfg.IgnoreOperationAnnotation), nil, Type)
	opts := cfg.Controller
	if opts.ReconciliationTimeout == 0 {
		opts.ReconciliationTimeout = controllerutils.DefaultReconciliationTimeout
	}
	c, err := builder.ControllerManagedBy(mgr).
		Named(extensionscontainerruntimecontroller.ControllerName).
		WithOptions(opts).
		Watches(&extensionsv1alpha1.ContainerRuntime{}, &handler.EnqueueRequestForObject{},
			builder.WithPredicates(append(slices.Clone(predicates), skipOwnStatusWritesWhileDeleting())...)).
		Watches(&resourcesv1alpha1.ManagedResource{}, handler.EnqueueRequestsFromMapFunc(runtimesWaitingFor(mgr.GetClient())),
			builder.WithPredicates(managedResourceChanged())).
		Build(newReconciler(mgr, counted))
	if err != nil {
		return fmt.Errorf("building the containerruntime controller: %w", err)
	}
	if cfg.IgnoreOperationAnnotation {
		// As the library's Add: a Cluster change (the shoot's spec) reconciles its ContainerRuntimes.
		if err := c.Watch(source.Kind[client.Object](mgr.GetCache(), &extensionsv1alpha1.Cluster{},
			handler.EnqueueRequestsFromMapFunc(extensionscontainerruntimecontroller.ClusterToContainerResourceMapper(mgr.GetClient(), predicates...)))); err != nil {
			return fmt.Errorf("watching Clusters: %w", err)
		}
	}
	return nil
}
