// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
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

// poolAContainerRuntime is gardenlet's ContainerRuntime of worker pool pool-a with the default binary path.
func poolAContainerRuntime() *extensionsv1alpha1.ContainerRuntime {
	return &extensionsv1alpha1.ContainerRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: "gvisor", Namespace: "shoot--p--s"},
		Spec: extensionsv1alpha1.ContainerRuntimeSpec{
			BinaryPath:  "/var/bin/containerruntimes",
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: Type},
			WorkerPool: extensionsv1alpha1.ContainerRuntimeWorkerPool{Name: "pool-a",
				Selector: metav1.LabelSelector{MatchLabels: map[string]string{"worker.gardener.cloud/pool": "pool-a"}}},
		},
	}
}
