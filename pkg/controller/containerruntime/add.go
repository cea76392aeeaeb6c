package containerruntime

import (
	"context"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	gardenercontainerruntime "github.com/gardener/gardener/extensions/pkg/controller/containerruntime"

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
	// DeleteWaitTimeout bounds Delete's and Migrate's waits.
	DeleteWaitTimeout time.Duration
	// UninstallTimeout bounds Delete's wait for the pool's uninstall (see ActuatorOptions).
	UninstallTimeout time.Duration
	// ReadinessGate switches the scheduling readiness gate on (see ActuatorOptions).
	ReadinessGate bool
	// SkipSandboxProof switches the installer's sandbox proof off (see ActuatorOptions).
	SkipSandboxProof bool
}

// AddToManager adds the ContainerRuntime controller for type gvisor, built on Gardener's extension library.
func AddToManager(ctx context.Context, mgr manager.Manager, cfg Config) error {
	if cfg.Renderer == nil {
		return fmt.Errorf("containerruntime controller: no renderer configured")
	}
	actuator := NewActuator(ActuatorOptions{
		Client:            mgr.GetClient(),
		APIReader:         mgr.GetAPIReader(),
		Renderer:          cfg.Renderer,
		Recorder:          mgr.GetEventRecorder("gardener-extension-runtime-gvisor"),
		DeleteWaitTimeout: cfg.DeleteWaitTimeout,
		UninstallTimeout:  cfg.UninstallTimeout,
		ReadinessGate:     cfg.ReadinessGate,
		SkipSandboxProof:  cfg.SkipSandboxProof,
	})
	return gardenercontainerruntime.Add(mgr, gardenercontainerruntime.AddArgs{
		Actuator:                  actuator,
		ControllerOptions:         cfg.Controller,
		Predicates:                gardenercontainerruntime.DefaultPredicates(ctx, mgr, cfg.IgnoreOperationAnnotation),
		Type:                      Type,
		IgnoreOperationAnnotation: cfg.IgnoreOperationAnnotation,
	})
}
