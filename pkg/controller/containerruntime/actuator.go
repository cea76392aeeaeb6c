package containerruntime

import (
	"time"

	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardenercontainerruntime "github.com/gardener/gardener/extensions/pkg/controller/containerruntime"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// Actuator implements Gardener's containerruntime.Actuator for gVisor (see the package doc).
type Actuator struct {
	client            client.Client
	apiReader         client.Reader
	renderer          *render.Renderer
	recorder          events.EventRecorder
	deleteWaitTimeout time.Duration
	uninstallTimeout  time.Duration

	readinessGateEnabled bool
	skipSandboxProof     bool
}

var _ gardenercontainerruntime.Actuator = (*Actuator)(nil)

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
	// DeleteWaitTimeout bounds Delete's and Migrate's waits for ManagedResources to be gone.
	DeleteWaitTimeout time.Duration
	// UninstallTimeout bounds how long Delete waits for the pool's nodes to report the uninstall done, counted
	// from the ContainerRuntime's deletion timestamp; after it the pool is removed anyway, with a warning event.
	UninstallTimeout time.Duration
	// ReadinessGate renders the scheduling readiness gate (docs/readiness-gate.md) for shoots on Kubernetes 1.30
	// or later.
	ReadinessGate bool
	// SkipSandboxProof renders the installation with the installer's sandbox proof off (--prove-sandbox=false); the
	// zero value keeps it on (render.InstallationValues.SkipSandboxProof).
	SkipSandboxProof bool
}

// NewActuator returns an Actuator.
func NewActuator(o ActuatorOptions) *Actuator {
	return &Actuator{
		client:            o.Client,
		apiReader:         o.APIReader,
		renderer:          o.Renderer,
		recorder:          o.Recorder,
		deleteWaitTimeout: o.DeleteWaitTimeout,
		uninstallTimeout:  o.UninstallTimeout,

		readinessGateEnabled: o.ReadinessGate,
		skipSandboxProof:     o.SkipSandboxProof,
	}
}
