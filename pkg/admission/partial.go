package admission

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// validateDecodable runs v1alpha1.Validate on the parts of a providerConfig that v1alpha1.Decode refused as a
// whole but that are still readable (the flags whose values are strings, a string testImageTag), so that a shoot
// owner sees the allowlist errors together with the decoding errors instead of one round trip each. It reads
// leniently and adds no rule of its own: the verdict on each value is Validate's. Unreadable input yields nothing
// (Decode's error already says why).
func validateDecodable(raw []byte, p *field.Path) field.ErrorList {
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil
	}
	var lenient struct {
		ConfigFlags  map[string]any `json:"configFlags"`
		TestImageTag any            `json:"testImageTag"`
	}
	if err := json.Unmarshal(js, &lenient); err != nil {
		return nil
	}
	cfg := &v1alpha1.GVisorConfiguration{}
	for name, v := range lenient.ConfigFlags {
		if s, ok := v.(string); ok {
			if cfg.ConfigFlags == nil {
				cfg.ConfigFlags = map[string]string{}
			}
			cfg.ConfigFlags[name] = s
		}
	}
	if s, ok := lenient.TestImageTag.(string); ok {
		cfg.TestImageTag = &s
	}
	return v1alpha1.Validate(cfg, p)
}
