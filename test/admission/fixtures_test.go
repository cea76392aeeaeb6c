// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

func ptr[T any](v T) *T { return &v }

func resourceQuantity(s string) resource.Quantity { return resource.MustParse(s) }

// gvisorShoot is a Shoot in projectNS that gardener-apiserver accepts (CloudProfile local, one worker pool), whose
// pool runs gvisor with the given providerConfig (flow-style YAML; "" for none).
func gvisorShoot(t testing.TB, name, providerConfig string) *gardencorev1beta1.Shoot {
	t.Helper()
	pc := ""
	if providerConfig != "" {
		pc = "\n          providerConfig: " + providerConfig
	}
	doc := `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata:
  name: ` + name + `
  namespace: ` + projectNS + `
spec:
  cloudProfile:
    kind: CloudProfile
    name: local
  region: local
  credentialsBindingName: local
  kubernetes:
    version: 1.33.0
  networking:
    type: calico
    nodes: 10.10.0.0/16
  provider:
    type: local
    workers:
    - name: gvisor
      minimum: 1
      maximum: 2
      machine:
        type: local
        image:
          name: local
          version: 1.0.0
        architecture: amd64
      cri:
        name: containerd
        containerRuntimes:
        - type: gvisor` + pc + "\n"
	s := &gardencorev1beta1.Shoot{}
	if err := yaml.UnmarshalStrict([]byte(doc), s); err != nil {
		t.Fatalf("test Shoot does not decode: %v\n%s", err, doc)
	}
	return s
}
