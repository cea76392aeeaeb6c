// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// desired is what the extension puts into cr's shoot for cr's pool, to install gVisor or (uninstall) to remove it:
// render.Renderer.Shoot decides it from the operator's settings and the Cluster (the one policy, shared with
// gvisor-render); this controller only splits it per ManagedResource. Everything is rendered before anything is
// written, so an error (a *render.ConfigurationError for bad input, wrapped) leaves the previous state untouched.
func (a *Actuator) desired(log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster, uninstall bool) (*render.ShootObjects, render.PoolObjects, error) {
	in := shootInput(cluster, cr)
	in.Uninstall = uninstall
	out, err := a.renderer.Shoot(a.settings.Render, in)
	if err != nil {
		return nil, render.PoolObjects{}, err
	}
	if out.ReadinessGateOff != "" {
		log.Info("Readiness gate off for this shoot", "reason", out.ReadinessGateOff)
	}
	return out, out.Pools[0], nil
}

// shootInput is what the Cluster says about the shoot of crs: its Kubernetes version (image vector targetVersion,
// readiness gate) and the machine architecture of each of its pools (spec.provider.workers[].machine.architecture,
// which selects the gVisor release sums the installer gets). Without a Cluster, or for a pool without the field,
// the installation carries every architecture's sums and the installer picks its node's (--node-arch).
func shootInput(cluster *extensionscontroller.Cluster, crs ...*extensionsv1alpha1.ContainerRuntime) render.ShootInput {
	in := render.ShootInput{ContainerRuntimes: crs}
	if cluster == nil || cluster.Shoot == nil {
		return in
	}
	in.KubernetesVersion = cluster.Shoot.Spec.Kubernetes.Version
	for _, w := range cluster.Shoot.Spec.Provider.Workers {
		if w.Machine.Architecture != nil {
			if in.Architectures == nil {
				in.Architectures = map[string]string{}
			}
			in.Architectures[w.Name] = *w.Machine.Architecture
		}
	}
	return in
}

// warnTestImageTag tells the shoot owner that providerConfig.testImageTag has no effect (see the package doc).
func (a *Actuator) warnTestImageTag(log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cfg *v1alpha1.GVisorConfiguration) {
	if cfg == nil || cfg.TestImageTag == nil {
		return
	}
	tag := *cfg.TestImageTag
	const msg = "providerConfig.testImageTag %q is ignored: the installation image is chosen by the operator " +
		"(image vector overwrite of the extension), not per shoot"
	log.Info("Ignoring providerConfig.testImageTag", "testImageTag", tag)
	if a.recorder != nil {
		a.recorder.Eventf(cr, nil, corev1.EventTypeWarning, "TestImageTagIgnored", "Reconcile", msg, tag)
	}
}
