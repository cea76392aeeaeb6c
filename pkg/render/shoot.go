// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"fmt"
	"time"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
)

// Settings are the operator's settings of the extension: the same for every shoot it serves. The controller builds
// them once from its command line; gvisor-render from its flags of the same names.
type Settings struct {
	// ReadinessGate asks for the scheduling readiness gate (docs/readiness-gate.md). Shoot renders it only where it
	// works (see ShootObjects.ReadinessGate).
	ReadinessGate bool
	// SkipSandboxProof renders every installation with the installer's sandbox proof off (--prove-sandbox=false);
	// the zero value keeps it on.
	SkipSandboxProof bool
	// ReproveInterval is how often each node's idle container proves gVisor again (the installation chart's
	// reproveInterval); zero keeps the chart's default (DefaultReproveInterval).
	ReproveInterval time.Duration
	// DeliveryMode is how gVisor reaches the nodes; the zero value means delivery.DaemonSet.
	DeliveryMode delivery.Mode
	// SandboxMetrics is the landscape's default for sandbox metrics (the node's metric server and runsc's
	// metric-server flag); a pool's providerConfig.sandboxMetrics.enabled overrides it either way
	// (v1alpha1.SandboxMetricsFor).
	SandboxMetrics bool
}

// ShootInput is what one shoot asks for: its gvisor ContainerRuntimes and what the Shoot says about them.
type ShootInput struct {
	// ContainerRuntimes of type gvisor of the shoot, at most one per worker pool.
	ContainerRuntimes []*extensionsv1alpha1.ContainerRuntime
	// KubernetesVersion is the shoot's (spec.kubernetes.version): it picks image vector entries with a targetVersion
	// and decides whether the readiness gate works there. Empty means unknown.
	KubernetesVersion string
	// Architectures maps a worker pool's name to its machine architecture (GOARCH, the Shoot's
	// spec.provider.workers[].machine.architecture); a pool without an entry gets every architecture's release sums.
	Architectures map[string]string
	// Uninstall renders the removal of gVisor from the pools instead of its installation.
	Uninstall bool
}

// ShootObjects is everything the extension puts into one shoot, split the way the controller deploys it: the
// shoot-wide RuntimeClass chart (ManagedResource extension-runtime-gvisor) and one installation per pool
// (extension-runtime-gvisor-installation-<pool>).
type ShootObjects struct {
	// RuntimeClass is the RuntimeClass chart; nil when uninstalling (it serves the shoot's other pools, and the
	// controller deletes it with the last pool).
	RuntimeClass *Manifests
	// Pools are the pools in the order of ShootInput.ContainerRuntimes.
	Pools []PoolObjects
	// ReadinessGate is whether the gate is rendered: Settings.ReadinessGate, the delivery mode is DaemonSet and the
	// shoot runs Kubernetes 1.30 or later.
	ReadinessGate bool
	// ReadinessGateOff says why the gate is off although Settings.ReadinessGate asks for it; "" otherwise.
	ReadinessGateOff string
}

// PoolObjects is what one worker pool gets.
type PoolObjects struct {
	// ContainerRuntime is the pool's ContainerRuntime, as given.
	ContainerRuntime *extensionsv1alpha1.ContainerRuntime
	// Pool is the worker pool's name.
	Pool string
	// Installation is the pool's installation chart (install or uninstall mode); nil in the OperatingSystemConfig
	// delivery mode, where gardener-node-agent installs gVisor (the webhook edits the pool's OSC).
	Installation *Manifests
	// Config is the pool's providerConfig, decoded and validated once (nil when uninstalling: the removal does not
	// read it). The controller's warnings (testImageTag) read it from here.
	Config *v1alpha1.GVisorConfiguration
	// Node is what the pool's nodes get, in both delivery modes (nil when uninstalling): the OperatingSystemConfig
	// webhook writes it into the pool's OSC, and Installation carries it in the DaemonSet mode.
	Node *NodeConfig
}

// Manifests returns every object of s in one stable order: what gvisor-render prints.
func (s *ShootObjects) Manifests() *Manifests {
	out := &Manifests{}
	if s.RuntimeClass != nil {
		out = s.RuntimeClass
	}
	var parts []*Manifests
	for _, p := range s.Pools {
		if p.Installation != nil {
			parts = append(parts, p.Installation)
		}
	}
	return out.Append(parts...)
}

// Shoot is the one place that decides what a shoot gets from the extension: the controller deploys its result (split
// per ManagedResource), gvisor-render prints it whole, and the tests compare the two. It applies, for every pool, the
// delivery mode (DaemonSet: RuntimeClass and installation; OperatingSystemConfig: the RuntimeClass only), the shoot's
// Kubernetes version (image vector targetVersion and the readiness gate's version floor), the pool's architecture
// and the operator's settings, and renders install or uninstall. Nothing is returned unless everything rendered.
func (r *Renderer) Shoot(s Settings, in ShootInput) (*ShootObjects, error) {
	mode, err := delivery.Parse(string(s.DeliveryMode))
	if err != nil {
		return nil, fmt.Errorf("operator setting DeliveryMode: %w", err)
	}
	out := &ShootObjects{}
	out.ReadinessGate, out.ReadinessGateOff = readinessGate(s.ReadinessGate, mode, in.KubernetesVersion)
	if !in.Uninstall {
		if out.RuntimeClass, err = r.RuntimeClass(RuntimeClassValues{ReadinessGate: out.ReadinessGate}); err != nil {
			return nil, fmt.Errorf("rendering the RuntimeClass chart: %w", err)
		}
	}
	owners := poolOwners{}
	for _, cr := range in.ContainerRuntimes {
		pool, err := r.pool(s, in, out.ReadinessGate, mode, cr)
		if err != nil {
			return nil, err
		}
		if err := owners.add(cr, pool.Pool); err != nil {
			return nil, err
		}
		out.Pools = append(out.Pools, pool)
	}
	return out, nil
}

// pool reads one ContainerRuntime and renders its pool's installation (none in the OperatingSystemConfig mode).
func (r *Renderer) pool(s Settings, in ShootInput, gate bool, mode delivery.Mode, cr *extensionsv1alpha1.ContainerRuntime) (PoolObjects, error) {
	if cr == nil {
		return PoolObjects{}, fmt.Errorf("nil ContainerRuntime")
	}
	values, cfg, err := readContainerRuntime(cr, in.Uninstall)
	if err != nil {
		return PoolObjects{}, invalid(cr, err)
	}
	p := PoolObjects{ContainerRuntime: cr, Pool: values.WorkerPool, Config: cfg}
	values.TargetVersion = in.KubernetesVersion
	values.Architecture = in.Architectures[values.WorkerPool]
	values.ReadinessGate, values.SkipSandboxProof, values.ReproveInterval = gate, s.SkipSandboxProof, s.ReproveInterval
	if !in.Uninstall {
		values.SandboxMetrics = v1alpha1.SandboxMetricsFor(cfg, s.SandboxMetrics)
	}
	if mode == delivery.OperatingSystemConfig {
		if !in.Uninstall {
			if p.Node, err = r.nodeConfig(values); err != nil {
				return PoolObjects{}, fmt.Errorf("ContainerRuntime %s/%s (worker pool %q): %w", cr.Namespace, cr.Name, values.WorkerPool, err)
			}
		}
		return p, nil
	}
	if p.Installation, p.Node, err = r.renderInstallation(values); err != nil {
		what := "rendering the installation chart"
		if in.Uninstall {
			what += " in uninstall mode"
		}
		return PoolObjects{}, fmt.Errorf("ContainerRuntime %s/%s (worker pool %q): %s: %w", cr.Namespace, cr.Name, values.WorkerPool, what, err)
	}
	return p, nil
}

// poolOwners maps each worker pool to the ContainerRuntime that names it: two for one pool would render the same
// DaemonSet twice.
type poolOwners map[string]string

func (p poolOwners) add(cr *extensionsv1alpha1.ContainerRuntime, pool string) error {
	if other, dup := p[pool]; dup {
		return invalid(cr, &ConfigurationError{Errs: field.ErrorList{
			field.Duplicate(workerPoolNamePath, pool+" (also in ContainerRuntime "+other+")")}})
	}
	p[pool] = cr.Name
	return nil
}

// invalid names the ContainerRuntime and pool a *ConfigurationError is about; wrapped with %w, it keeps its error
// code for Gardener's extension library (see the package doc).
func invalid(cr *extensionsv1alpha1.ContainerRuntime, err error) error {
	return fmt.Errorf("invalid ContainerRuntime %s/%s (worker pool %q): %w", cr.Namespace, cr.Name, cr.Spec.WorkerPool.Name, err)
}
