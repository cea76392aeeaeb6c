// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"testing"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// devRenderer is the renderer of a development build without an image vector overwrite, as the controller's main
// loads it (render.Load: the embedded images and gVisor release sums).
func devRenderer(t *testing.T) *render.Renderer {
	t.Helper()
	r, err := render.Load("v0.0.0-dev", "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// poolAContainerRuntime is gardenlet's ContainerRuntime of worker pool pool-a of shoot p/s (clusterOf's).
func poolAContainerRuntime() *extensionsv1alpha1.ContainerRuntime {
	return gardenerfixtures.ContainerRuntime(gardenerfixtures.Namespace(shootOf("")), "pool-a", nil, v1beta1constants.GardenerOperationReconcile)
}

// shootOf is shoot p/s on Kubernetes version with workers, as gardener-apiserver stores it.
func shootOf(version string, workers ...gardencorev1beta1.Worker) *gardencorev1beta1.Shoot {
	return gardenerfixtures.Shoot("p", "s", version, workers...)
}

// clusterOf is the Cluster the extension library passes the actuator for shoot (gardenlet's, decoded).
func clusterOf(shoot *gardencorev1beta1.Shoot) *extensionscontroller.Cluster {
	return gardenerfixtures.DecodedCluster(shoot)
}
