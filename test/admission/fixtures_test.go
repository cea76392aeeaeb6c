package admission_test

import (
	"encoding/json"
	"os"
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

// fieldConfig is one providerConfig from the field; JSON nil means none.
type fieldConfig struct {
	Name string
	JSON []byte
}

// fieldProviderConfigs reads pkg/admission/testdata/field-provider-configs.yaml (pkg/render/fieldcompat_test.go's
// inputs, the providerConfigs the original extension documents), the list pkg/admission's unit tests check too.
func fieldProviderConfigs(t testing.TB) []fieldConfig {
	t.Helper()
	data, err := os.ReadFile("../../pkg/admission/testdata/field-provider-configs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		Name           string          `json:"name"`
		ProviderConfig json.RawMessage `json:"providerConfig"`
	}
	if err := yaml.UnmarshalStrict(data, &raw); err != nil {
		t.Fatal(err)
	}
	out := make([]fieldConfig, 0, len(raw))
	for _, r := range raw {
		c := fieldConfig{Name: r.Name}
		if len(r.ProviderConfig) > 0 && string(r.ProviderConfig) != "null" {
			c.JSON = r.ProviderConfig
		}
		out = append(out, c)
	}
	return out
}
