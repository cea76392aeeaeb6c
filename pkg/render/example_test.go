// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"fmt"
	"sort"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// A controller renders what one ContainerRuntime needs: the shoot-wide RuntimeClass and its pool's installation.
func Example() {
	// In a binary: imagevector.Load(version.Version), which also applies IMAGEVECTOR_OVERWRITE.
	images, err := imagevector.LoadWithOverwrite("v1.2.3", "")
	if err != nil {
		panic(err)
	}
	r, err := render.New(images) // parses the charts once; keep r for the life of the process
	if err != nil {
		panic(err)
	}

	cr := exampleContainerRuntime()
	// The operator's settings (here the defaults) and what the shoot asks for: the extension's whole policy.
	shoot, err := r.Shoot(render.Settings{}, render.ShootInput{
		ContainerRuntimes: []*extensionsv1alpha1.ContainerRuntime{cr},
		KubernetesVersion: "1.33.4",
	})
	if render.IsConfigurationError(err) {
		// The user's input is wrong: report it (the error carries ERR_CONFIGURATION_PROBLEM), don't retry.
		fmt.Println(err)
		return
	}
	if err != nil {
		panic(err)
	}
	runtimeClass, installation := shoot.RuntimeClass, shoot.Pools[0].Installation // one ManagedResource each

	for _, m := range []*render.Manifests{runtimeClass, installation} {
		var keys []string
		for k := range m.Files() { // the data of a ManagedResource secret
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Println(keys)
	}
	for _, obj := range installation.Objects() {
		fmt.Printf("%T %s/%s\n", obj, obj.GetNamespace(), obj.GetName())
	}
	ds := installation.Objects()[1].(*appsv1.DaemonSet)
	fmt.Println(ds.Spec.Template.Spec.Containers[0].Image)
	// Output:
	// [runtimeclass____gvisor.yaml]
	// [configmap__kube-system__gvisor-installation-gvisor-pool-runsc.yaml daemonset__kube-system__gvisor-installation-gvisor-pool.yaml networkpolicy__kube-system__gvisor-installation-gvisor-pool.yaml]
	// *v1.ConfigMap kube-system/gvisor-installation-gvisor-pool-runsc
	// *v1.DaemonSet kube-system/gvisor-installation-gvisor-pool
	// *v1.NetworkPolicy kube-system/gvisor-installation-gvisor-pool
	// ghcr.io/runtime-gvisor/runtime-gvisor-installation:v1.2.3
}

// exampleContainerRuntime is a ContainerRuntime as gardenlet writes it into the seed for worker pool gvisor-pool with
// gvisor and Istio's net-raw: named <type>-<pool>, selecting the pool by both of its labels.
func exampleContainerRuntime() *extensionsv1alpha1.ContainerRuntime {
	return &extensionsv1alpha1.ContainerRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: "gvisor-gvisor-pool", Namespace: "shoot--foo--bar"},
		Spec: extensionsv1alpha1.ContainerRuntimeSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{
				Type: "gvisor",
				ProviderConfig: &runtime.RawExtension{Raw: []byte(`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1",` +
					`"kind":"GVisorConfiguration","configFlags":{"net-raw":"true"}}`)},
			},
			BinaryPath: "/var/bin/containerruntimes",
			WorkerPool: extensionsv1alpha1.ContainerRuntimeWorkerPool{
				Name: "gvisor-pool",
				Selector: metav1.LabelSelector{MatchLabels: map[string]string{
					"worker.gardener.cloud/pool": "gvisor-pool", "worker.garden.sapcloud.io/group": "gvisor-pool",
				}},
			},
		},
	}
}
