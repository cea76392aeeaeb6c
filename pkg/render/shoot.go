package render

import (
	"fmt"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ShootOptions are the operator's settings of the extension that apply to every shoot alike.
type ShootOptions struct {
	// ReadinessGate sets RuntimeClassValues.ReadinessGate and every pool's InstallationValues.ReadinessGate.
	ReadinessGate bool
	// SkipSandboxProof sets every pool's InstallationValues.SkipSandboxProof (the extension's --prove-sandbox=false);
	// the zero value keeps the sandbox proof on.
	SkipSandboxProof bool
}

// ContainerRuntimes renders everything the extension puts into a shoot for the given ContainerRuntimes of one
// shoot with the default ShootOptions (see Shoot).
func (r *Renderer) ContainerRuntimes(crs ...*extensionsv1alpha1.ContainerRuntime) (*Manifests, error) {
	return r.Shoot(ShootOptions{}, crs...)
}

// Shoot renders everything the extension puts into a shoot for the given ContainerRuntimes of one shoot: the
// RuntimeClass chart once and each pool's installation, in one stable order. The controller splits the same
// output into one ManagedResource per chart; gvisor-render and the snapshot tests print it whole.
func (r *Renderer) Shoot(opts ShootOptions, crs ...*extensionsv1alpha1.ContainerRuntime) (*Manifests, error) {
	out, err := r.RuntimeClass(RuntimeClassValues{ReadinessGate: opts.ReadinessGate})
	if err != nil {
		return nil, fmt.Errorf("rendering the RuntimeClass chart: %w", err)
	}
	pools, err := r.pools(opts, crs, ForContainerRuntime, "rendering the installation chart")
	if err != nil {
		return nil, err
	}
	return out.Append(pools), nil
}

// ShootUninstall renders, for the given ContainerRuntimes of one shoot, each pool's installation chart in uninstall
// mode (ForUninstall): what the pools' ManagedResources extension-runtime-gvisor-installation-<pool> hold while
// gVisor is removed from them. The RuntimeClass chart is not part of it: it serves the shoot's other pools, and
// the controller deletes it with the last pool. opts.ReadinessGate must be what the installs ran with (the
// uninstall removes the node's readiness label first).
func (r *Renderer) ShootUninstall(opts ShootOptions, crs ...*extensionsv1alpha1.ContainerRuntime) (*Manifests, error) {
	return r.pools(opts, crs, ForUninstall, "rendering the installation chart in uninstall mode")
}

// pools renders the installation chart once per ContainerRuntime with the values valuesFor derives from it and
// the shoot-wide options, refusing two ContainerRuntimes for one pool.
func (r *Renderer) pools(opts ShootOptions, crs []*extensionsv1alpha1.ContainerRuntime,
	valuesFor func(*extensionsv1alpha1.ContainerRuntime) (InstallationValues, error), what string) (*Manifests, error) {
	var parts []*Manifests
	owners := poolOwners{}
	for _, cr := range crs {
		values, err := valuesFor(cr)
		if err != nil {
			return nil, fmt.Errorf("ContainerRuntime %s/%s: %w", cr.Namespace, cr.Name, err)
		}
		if err := owners.add(cr, values.WorkerPool); err != nil {
			return nil, err
		}
		values.ReadinessGate, values.SkipSandboxProof = opts.ReadinessGate, opts.SkipSandboxProof
		m, err := r.Installation(values)
		if err != nil {
			return nil, fmt.Errorf("ContainerRuntime %s/%s: %s: %w", cr.Namespace, cr.Name, what, err)
		}
		parts = append(parts, m)
	}
	return (&Manifests{}).Append(parts...), nil
}

// poolOwners maps each worker pool to the ContainerRuntime that names it: two for one pool would render the same
// DaemonSet twice.
type poolOwners map[string]string

func (p poolOwners) add(cr *extensionsv1alpha1.ContainerRuntime, pool string) error {
	if other, dup := p[pool]; dup {
		return fmt.Errorf("ContainerRuntime %s/%s: %w", cr.Namespace, cr.Name, &ConfigurationError{Errs: field.ErrorList{
			field.Duplicate(workerPoolNamePath, pool+" (also in ContainerRuntime "+other+")")}})
	}
	p[pool] = cr.Name
	return nil
}
