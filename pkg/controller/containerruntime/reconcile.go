package containerruntime

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/utils/managedresources"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// Reconcile renders both charts and creates or updates the shoot-wide and the pool's ManagedResources.
func (a *Actuator) Reconcile(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	runtimeClass, installation, err := a.render(log, cr, shootVersion(cluster))
	if err != nil {
		return err
	}
	// The pool's installation first: the RuntimeClass lets pods ask for gVisor, so it should not appear before
	// the DaemonSet that installs it.
	pool := cr.Spec.WorkerPool.Name
	if err := managedresources.CreateForShoot(ctx, a.client, cr.Namespace, InstallationManagedResourceName(pool), Origin, false, installation.Files()); err != nil {
		return fmt.Errorf("deploying ManagedResource %s/%s: %w", cr.Namespace, InstallationManagedResourceName(pool), err)
	}
	// Every pool of the shoot deploys the same shoot-wide ManagedResource, and pools are reconciled in parallel:
	// two may race to create the same content-addressed Secret or ManagedResource, or update it from a stale
	// cache. The loser retries and then finds the object as it wants it, instead of reporting a lastError.
	if err := retry.OnError(retry.DefaultBackoff, lostRace, func() error {
		return managedresources.CreateForShoot(ctx, a.client, cr.Namespace, ManagedResourceName, Origin, false, runtimeClass.Files())
	}); err != nil {
		return fmt.Errorf("deploying ManagedResource %s/%s: %w", cr.Namespace, ManagedResourceName, err)
	}
	return nil
}

func lostRace(err error) bool { return apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) }

// Restore re-creates the ManagedResources on the new seed; gardener-resource-manager adopts the RuntimeClass and
// DaemonSets that Migrate left in the shoot. Nothing is kept in .status.state: everything is derived from the
// ContainerRuntime itself.
func (a *Actuator) Restore(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	return a.Reconcile(ctx, log, cr, cluster)
}

// render renders both charts; any error is returned before anything is written.
func (a *Actuator) render(log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, shootVersion string) (runtimeClass, installation *render.Manifests, err error) {
	values, err := render.ForContainerRuntime(cr)
	if err != nil {
		return nil, nil, inputError(cr, err)
	}
	values.TargetVersion = shootVersion
	values.ReadinessGate = a.readinessGate(log, shootVersion)
	values.SkipSandboxProof = a.skipSandboxProof
	a.warnTestImageTag(log, cr)

	if runtimeClass, err = a.renderer.RuntimeClass(render.RuntimeClassValues{ReadinessGate: values.ReadinessGate}); err != nil {
		return nil, nil, fmt.Errorf("rendering the RuntimeClass chart: %w", err)
	}
	if installation, err = a.renderer.Installation(values); err != nil {
		return nil, nil, fmt.Errorf("rendering the installation chart for worker pool %q: %w", cr.Spec.WorkerPool.Name, err)
	}
	return runtimeClass, installation, nil
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
