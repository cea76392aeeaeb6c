// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gardenerfixtures_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// examples decodes every document of the example file name into a new T.
func examples[T any](t *testing.T, name string) []*T {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "example", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	var out []*T
	for {
		obj := new(T)
		if err := dec.Decode(obj); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, obj)
	}
}

// TestExampleContainerRuntimesAreGardenlets: the ContainerRuntimes in example/ (what the README and the demo
// apply) are named and shaped exactly as gardenlet writes them for their pool and providerConfig.
func TestExampleContainerRuntimesAreGardenlets(t *testing.T) {
	for _, file := range []string{"containerruntime.yaml", "containerruntimes-two-pools.yaml"} {
		for _, cr := range examples[extensionsv1alpha1.ContainerRuntime](t, file) {
			want := gardenerfixtures.ContainerRuntime(cr.Namespace, cr.Spec.WorkerPool.Name, cr.Spec.ProviderConfig.Raw, "")
			if cr.Name != want.Name {
				t.Errorf("%s: ContainerRuntime %q of pool %q: gardenlet names it %q", file, cr.Name, cr.Spec.WorkerPool.Name, want.Name)
			}
			if diff := cmp.Diff(want.Spec, cr.Spec); diff != "" {
				t.Errorf("%s: ContainerRuntime %s: spec differs from gardenlet's (-gardenlet +example):\n%s", file, cr.Name, diff)
			}
		}
	}
}

// TestExampleClusterIsNamedByGardenlet: example/seed's Cluster (and namespace) is named as gardenlet names the
// seed namespace of its shoot, the namespace the example ContainerRuntimes live in.
func TestExampleClusterIsNamedByGardenlet(t *testing.T) {
	clusters := examples[extensionsv1alpha1.Cluster](t, filepath.Join("seed", "cluster.yaml"))
	var cluster *extensionsv1alpha1.Cluster
	for _, c := range clusters {
		if strings.Contains(string(c.Spec.Shoot.Raw), `"Shoot"`) {
			cluster = c
		}
	}
	if cluster == nil {
		t.Fatal("example/seed/cluster.yaml: no Cluster")
	}
	shoot := &gardencorev1beta1.Shoot{}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(cluster.Spec.Shoot.Raw), 4096)
	if err := dec.Decode(shoot); err != nil {
		t.Fatal(err)
	}
	project := strings.TrimPrefix(shoot.Namespace, gardenerutils.ProjectNamespacePrefix)
	if want := gardenerutils.ComputeTechnicalID(project, shoot); cluster.Name != want {
		t.Errorf("example Cluster %q: gardenlet names the seed namespace of shoot %s/%s %q", cluster.Name, shoot.Namespace, shoot.Name, want)
	}
	for _, file := range []string{"containerruntime.yaml", "containerruntimes-two-pools.yaml"} {
		for _, cr := range examples[extensionsv1alpha1.ContainerRuntime](t, file) {
			if cr.Namespace != cluster.Name {
				t.Errorf("%s: ContainerRuntime %s in namespace %q, not the example Cluster's %q", file, cr.Name, cr.Namespace, cluster.Name)
			}
		}
	}
}
