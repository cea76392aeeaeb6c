package admission_test

import (
	"encoding/json"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission"
)

// fieldConfig is one providerConfig from the field; JSON nil means none.
type fieldConfig struct {
	Name string
	JSON []byte
}

// fieldProviderConfigs reads testdata/field-provider-configs.yaml: pkg/render/fieldcompat_test.go's inputs, the
// providerConfigs the original extension documents (test/admission's real gardener-apiserver test reads it too).
// A nil JSON means no providerConfig.
func fieldProviderConfigs(t testing.TB) []fieldConfig {
	t.Helper()
	data, err := os.ReadFile("testdata/field-provider-configs.yaml")
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
		var js []byte
		if len(r.ProviderConfig) > 0 && string(r.ProviderConfig) != "null" {
			js = r.ProviderConfig
		}
		out = append(out, fieldConfig{r.Name, js})
	}
	if len(out) != 13 {
		t.Fatalf("want the 13 field providerConfigs of pkg/render/fieldcompat_test.go, got %d", len(out))
	}
	return out
}

// TestFieldProviderConfigsAccepted: every field-written providerConfig passes, on create and on an update that
// introduces it.
func TestFieldProviderConfigsAccepted(t *testing.T) {
	for _, c := range fieldProviderConfigs(t) {
		t.Run(c.Name, func(t *testing.T) {
			s := shoot(t, plainWorker("a")+gvisorWorker("gvisor", ""))
			if c.JSON != nil {
				s.Spec.Provider.Workers[1].CRI.ContainerRuntimes[0].ProviderConfig = &runtime.RawExtension{Raw: c.JSON}
			}
			if errs := admission.ValidateShoot(s); len(errs) != 0 {
				t.Errorf("create refused a providerConfig the field uses:\n%s", errs.ToAggregate())
			}
			if errs := admission.ValidateShootUpdate(s, shoot(t, plainWorker("a"))); len(errs) != 0 {
				t.Errorf("update refused a providerConfig the field uses:\n%s", errs.ToAggregate())
			}
		})
	}
}
