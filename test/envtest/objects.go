// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// Cluster is the Cluster resource gardenlet writes into a shoot namespace (named like the namespace): the
// extension library reads the shoot (here: only its Kubernetes version) from it.
func Cluster(namespace, shootName, kubernetesVersion string) *extensionsv1alpha1.Cluster {
	seed := raw(map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", "metadata": map[string]any{"name": "local"}})
	return &extensionsv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: namespace},
		Spec: extensionsv1alpha1.ClusterSpec{
			CloudProfile: raw(map[string]any{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "CloudProfile", "metadata": map[string]any{"name": "local"}}),
			Seed:         &seed,
			Shoot: raw(map[string]any{
				"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
				"metadata": map[string]any{"name": shootName, "namespace": "garden-local"},
				"spec":     map[string]any{"kubernetes": map[string]any{"version": kubernetesVersion}},
			}),
		},
	}
}

// ContainerRuntime is a gvisor ContainerRuntime for worker pool pool as gardenlet creates it, annotated with
// the operation op (reconcile, restore; empty for none). providerConfig is JSON, nil for none.
func ContainerRuntime(namespace, name, pool string, providerConfig []byte, op string) *extensionsv1alpha1.ContainerRuntime {
	cr := &extensionsv1alpha1.ContainerRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: extensionsv1alpha1.ContainerRuntimeSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "gvisor"},
			BinaryPath:  "/var/bin/containerruntimes",
			WorkerPool: extensionsv1alpha1.ContainerRuntimeWorkerPool{
				Name:     pool,
				Selector: metav1.LabelSelector{MatchLabels: map[string]string{"worker.gardener.cloud/pool": pool}},
			},
		},
	}
	if op != "" {
		cr.Annotations = map[string]string{v1beta1constants.GardenerOperation: op}
	}
	if providerConfig != nil {
		cr.Spec.ProviderConfig = &runtime.RawExtension{Raw: providerConfig}
	}
	return cr
}

func raw(v any) runtime.RawExtension {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of strings: cannot fail
	}
	return runtime.RawExtension{Raw: b}
}
