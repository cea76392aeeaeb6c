// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"os"
	"strings"
	"testing"

	gardencorev1 "github.com/gardener/gardener/pkg/apis/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
)

// TestExampleRegistrationRenders installs nothing but does what gardenlet does with the committed
// example/controller-registration.yaml: renders its rawChart with its values plus the injected gardener
// block, here with the real helm CLI, and checks the images. (Staleness is tested in
// hack/generate-controller-registration.)
func TestExampleRegistrationRenders(t *testing.T) {
	data, err := os.ReadFile("../example/controller-registration.yaml")
	if err != nil {
		t.Fatalf("%v: run `make generate`", err)
	}
	var deployment *gardencorev1.ControllerDeployment
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var d gardencorev1.ControllerDeployment
		if err := yaml.Unmarshal([]byte(doc), &d); err == nil && d.Kind == "ControllerDeployment" {
			deployment = &d
		}
	}
	if deployment == nil || deployment.Helm == nil || deployment.Helm.Values == nil {
		t.Fatal("example/controller-registration.yaml has no ControllerDeployment with helm rawChart and values")
	}
	chart := writeFile(t, "chart.tgz", string(deployment.Helm.RawChart))
	values := writeFile(t, "values.json", string(deployment.Helm.Values.Raw))
	out, stderr, err := helm(t, "template", deployment.Name, chart, "--namespace", "extension-"+deployment.Name,
		"-f", "testdata/gardener-injected-values.yaml", "-f", values)
	if err != nil {
		t.Fatalf("helm template of the example's rawChart: %v\n%s", err, stderr)
	}
	_, c := decode(t, out).deployment(t)
	if err := imagevector.CheckReference(c.Image); err != nil {
		t.Error(err)
	}
}
