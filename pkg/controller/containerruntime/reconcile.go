package containerruntime

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// Reconcile renders both charts and creates or updates the shoot-wide and the pool's ManagedResources, in the order
// the readiness gate needs (gateorder.go): with the gate on, the shoot-wide one (the admission policy) first and the
// pool's (its RBAC) once the first is applied; otherwise the pool's first, and the shoot-wide one only once no pool's
// readiness-gate RBAC is left in the shoot.
func (a *Actuator) Reconcile(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	runtimeClass, installation, gate, err := a.render(log, cr, shootVersion(cluster), poolArchitecture(cluster, cr.Spec.WorkerPool.Name))
	if err != nil {
		return err
	}
	pool := cr.Spec.WorkerPool.Name
	deployPool := func() error {
		return a.deployForShoot(ctx, cr.Namespace, InstallationManagedResourceName(pool), installation.Files())
	}
	deployShootWide := func() error {
		return a.deployForShoot(ctx, cr.Namespace, ManagedResourceName, runtimeClass.Files())
	}
	if gate {
		// The admission policy before the RBAC it guards (gateorder.go). The RuntimeClass appearing before the
		// DaemonSet is harmless here: with the gate its node selector requires the label only installers set.
		if err := deployShootWide(); err != nil {
			return err
		}
		if err := a.waitShootWideApplied(ctx, cr.Namespace); err != nil {
			return err
		}
		return deployPool()
	}
	// The pool's installation first: the RuntimeClass lets pods ask for gVisor, so it should not appear before
	// the DaemonSet that installs it. The pool's readiness-gate RBAC (if it had any) goes with this update.
	if err := deployPool(); err != nil {
		return err
	}
	// The shoot-wide ManagedResource drops the admission policy only once no pool's RBAC is left (gateorder.go).
	hasPolicy, err := a.shootWideHasPolicy(ctx, cr.Namespace)
	if err != nil {
		return err
	}
	if !hasPolicy {
		return deployShootWide()
	}
	pending, err := a.poolsWithGateBinding(ctx, cr.Namespace)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		log.Info("Keeping the readiness gate's admission policy until no pool's RBAC is left", "managedResources", pending)
		return &reconcilerutils.RequeueAfterError{RequeueAfter: gatePoll, Cause: fmt.Errorf(
			"readiness gate off: the admission policy is removed only after the RBAC it guards, still in %s", strings.Join(pending, ", "))}
	}
	return deployShootWide()
}

// Restore re-creates the ManagedResources on the new seed; gardener-resource-manager adopts the RuntimeClass and
// DaemonSets that Migrate left in the shoot. Nothing is kept in .status.state: everything is derived from the
// ContainerRuntime itself.
func (a *Actuator) Restore(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	return a.Reconcile(ctx, log, cr, cluster)
}

// render renders both charts; any error is returned before anything is written.
func (a *Actuator) render(log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, shootVersion, arch string) (runtimeClass, installation *render.Manifests, gate bool, err error) {
	values, err := render.ForContainerRuntime(cr)
	if err != nil {
		return nil, nil, false, inputError(cr, err)
	}
	values.TargetVersion = shootVersion
	values.Architecture = arch
	values.ReadinessGate = a.readinessGate(log, shootVersion)
	values.SkipSandboxProof = a.skipSandboxProof
	a.warnTestImageTag(log, cr)

	if runtimeClass, err = a.renderer.RuntimeClass(render.RuntimeClassValues{ReadinessGate: values.ReadinessGate}); err != nil {
		return nil, nil, false, fmt.Errorf("rendering the RuntimeClass chart: %w", err)
	}
	if installation, err = a.renderer.Installation(values); err != nil {
		return nil, nil, false, fmt.Errorf("rendering the installation chart for worker pool %q: %w", cr.Spec.WorkerPool.Name, err)
	}
	return runtimeClass, installation, values.ReadinessGate, nil
}

// warnTestImageTag tells the shoot owner that providerConfig.testImageTag has no effect (see the package doc).
func (a *Actuator) warnTestImageTag(log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime) {
	tag, set := render.TestImageTag(cr)
	if !set {
		return
	}
	const msg = "providerConfig.testImageTag %q is ignored: the installation image is chosen by the operator " +
		"(image vector overwrite of the extension), not per shoot"
	log.Info("Ignoring providerConfig.testImageTag", "testImageTag", tag)
	if a.recorder != nil {
		a.recorder.Eventf(cr, nil, corev1.EventTypeWarning, "TestImageTagIgnored", "Reconcile", msg, tag)
	}
}

// shootVersion is the shoot's Kubernetes version, for image vector entries with a targetVersion constraint.
func shootVersion(cluster *extensionscontroller.Cluster) string {
	if cluster == nil || cluster.Shoot == nil {
		return ""
	}
	return cluster.Shoot.Spec.Kubernetes.Version
}
