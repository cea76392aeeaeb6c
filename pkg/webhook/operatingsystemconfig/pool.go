// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"fmt"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// poolRuntime is a worker pool's gvisor container runtime as the webhook sees it.
type poolRuntime struct {
	// field names the Shoot field the ContainerRuntime comes from, for errors.
	field string
	// cr is the ContainerRuntime gardenlet creates for the pool (gardener pkg/component/extensions/containerruntime:
	// name <type>-<pool>, binaryPath ContainerDRuntimeContainersBinFolder, the pool's selector, the Shoot's
	// providerConfig; a test holds it to gardenlet's). It is built here instead of read from the seed: gardenlet may
	// write the OSC before the ContainerRuntime. Its name appears only in errors.
	cr *extensionsv1alpha1.ContainerRuntime
	// architecture and kubernetesVersion select the release sums and the image vector entry, as in the controller.
	architecture      string
	kubernetesVersion string
	// shoot is the Cluster's Shoot: its networks bound who reaches the node's metric server (metricServerPeers).
	shoot *gardencorev1beta1.Shoot
}

// gvisorPool returns the gvisor container runtime of the worker pool named pool in the cluster's Shoot, and whether
// gVisor reaches that pool through its OSC: the pool has one and the landscape delivers through the OSC. It is the
// one place that decides whether an OSC gets gVisor (false for a gVisor pool leads to the removal path).
func gvisorPool(opts Options, cluster *extensionscontroller.Cluster, pool string) (*poolRuntime, bool) {
	if opts.DeliveryMode != "" && opts.DeliveryMode != delivery.OperatingSystemConfig {
		return nil, false
	}
	if cluster == nil || cluster.Shoot == nil || pool == "" {
		return nil, false
	}
	for i, w := range cluster.Shoot.Spec.Provider.Workers {
		if w.Name != pool || w.CRI == nil {
			continue
		}
		for j, r := range w.CRI.ContainerRuntimes {
			if r.Type != render.Type {
				continue
			}
			pr := &poolRuntime{
				field: fmt.Sprintf("spec.provider.workers[%d].cri.containerRuntimes[%d]", i, j),
				cr: &extensionsv1alpha1.ContainerRuntime{
					ObjectMeta: metav1.ObjectMeta{Name: r.Type + "-" + pool, Namespace: cluster.ObjectMeta.Name},
					Spec: extensionsv1alpha1.ContainerRuntimeSpec{
						BinaryPath: extensionsv1alpha1.ContainerDRuntimeContainersBinFolder,
						WorkerPool: extensionsv1alpha1.ContainerRuntimeWorkerPool{
							Name: pool,
							Selector: metav1.LabelSelector{MatchLabels: map[string]string{
								v1beta1constants.LabelWorkerPool: pool, v1beta1constants.LabelWorkerPoolDeprecated: pool,
							}},
						},
						DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: r.Type, ProviderConfig: r.ProviderConfig},
					},
				},
				kubernetesVersion: cluster.Shoot.Spec.Kubernetes.Version,
				shoot:             cluster.Shoot,
			}
			if w.Machine.Architecture != nil {
				pr.architecture = *w.Machine.Architecture
			}
			return pr, true
		}
	}
	return nil, false
}
