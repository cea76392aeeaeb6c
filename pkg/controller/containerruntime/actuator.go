// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"sync"

	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontainerruntimecontroller "github.com/gardener/gardener/extensions/pkg/controller/containerruntime"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/shootclient"
)

// Actuator implements Gardener's containerruntime.Actuator for gVisor (see the package doc).
//
// Process-local memory: uninstalls, uninstalled and removed let the later Delete passes of a pool skip a render or
// a read that an earlier pass of this process already did. None of them decides anything the API server's state
// would not decide the same way: a restarted process, or another replica after a leader change, starts with them
// empty, reads again and comes to the same result (the uninstall's deadline counts from the ContainerRuntime's
// deletion timestamp, not from this process's memory). Their entries are bounded by the deletions this process sees
// and go when those are done.
type Actuator struct {
	client    client.Client
	apiReader client.Reader
	renderer  *render.Renderer
	recorder  events.EventRecorder
	settings  Settings
	shoots    *shootclient.Cache
	// uninstalls: per ContainerRuntime UID, the generation of the pool's ManagedResource this process deployed the
	// uninstall at; the passes while it rolls out do not render it again (delete_uninstall.go: deployUninstall).
	uninstalls sync.Map
	// uninstalled: the ContainerRuntimes (UID) whose uninstall this process saw done or timed out; the passes after
	// it, waiting for the removal, do not read the pool's ManagedResource again.
	uninstalled sync.Map
	// removed: the ManagedResources this process deleted; a cache miss then needs no live read
	// (delete_removedmemory.go).
	removed removedManagedResources
}

var _ extensionscontainerruntimecontroller.Actuator = (*Actuator)(nil)

// ActuatorOptions are the dependencies of an Actuator.
type ActuatorOptions struct {
	// Client writes ManagedResources and their Secrets (the manager's client).
	Client client.Client
	// APIReader reads from the API server directly (mgr.GetAPIReader()); used where a stale cache would be wrong.
	APIReader client.Reader
	// Renderer renders the charts.
	Renderer *render.Renderer
	// Recorder records warning events on ContainerRuntimes; nil records none.
	Recorder events.EventRecorder
	// Settings are the operator's settings.
	Settings Settings
	// ShootClients are the process's shoot clients (shared with the health checks); nil: a cache of its own.
	ShootClients *shootclient.Cache
}

// NewActuator returns an Actuator.
func NewActuator(o ActuatorOptions) *Actuator {
	shoots := o.ShootClients
	if shoots == nil {
		shoots = shootclient.NewCache(o.Client)
	}
	return &Actuator{client: o.Client, apiReader: o.APIReader, renderer: o.Renderer, recorder: o.Recorder, settings: o.Settings, shoots: shoots}
}
