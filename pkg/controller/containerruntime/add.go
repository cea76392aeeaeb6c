// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	extensionscontainerruntimecontroller "github.com/gardener/gardener/extensions/pkg/controller/containerruntime"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
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
}

// AddToManager adds the ContainerRuntime controller for type gvisor, built on Gardener's extension library.
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
	})
	return extensionscontainerruntimecontroller.Add(mgr, extensionscontainerruntimecontroller.AddArgs{
		Actuator:                  actuator,
		ControllerOptions:         cfg.Controller,
		Predicates:                extensionscontainerruntimecontroller.DefaultPredicates(ctx, mgr, cfg.IgnoreOperationAnnotation),
		Type:                      Type,
		IgnoreOperationAnnotation: cfg.IgnoreOperationAnnotation,
	})
}
