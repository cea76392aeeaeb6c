// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// Settings are the operator's settings of the controller, resolved once from the command line
// (cmd/gardener-extension-runtime-gvisor/app: Options.ControllerSettings) and handed unchanged through Config and
// ActuatorOptions to the Actuator.
type Settings struct {
	// Render are the settings every shoot's objects are rendered with (readiness gate, sandbox proof, delivery
	// mode): render.Renderer.Shoot applies them.
	Render render.Settings
	// DeleteWaitTimeout bounds Delete's and Migrate's waits for ManagedResources to be gone.
	DeleteWaitTimeout time.Duration
	// UninstallTimeout bounds how long Delete waits for the pool's nodes to report the uninstall done, counted
	// from the ContainerRuntime's deletion timestamp; after it the pool is removed anyway, with a warning event.
	UninstallTimeout time.Duration
	// ShootMonitoring deploys the shoot's monitoring objects (pkg/monitoring) into its namespace on the seed with
	// the shoot-wide ManagedResource and removes them with it (monitoring.go). Off, nothing of it is read or written.
	ShootMonitoring bool
}
