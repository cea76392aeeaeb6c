package v1alpha1

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// ProviderConfigPath is the root of the field paths in Decode's and Validate's errors: the providerConfig of the
// ContainerRuntime (and of the Shoot's worker containerRuntimes entry it comes from).
var ProviderConfigPath = field.NewPath("providerConfig")

// knownFields are the top-level fields of a GVisorConfiguration, listed in "unknown field" errors.
var knownFields = []string{"apiVersion", "kind", "configFlags", "testImageTag"}

// strictField extracts the field name from sigs.k8s.io/json's strict errors (`unknown field "x"`,
// `duplicate field "x"`).
var strictField = regexp.MustCompile(`^(unknown|duplicate) field "([^"]*)"`)

// wire is what Decode reads before checking value types, so that `net-raw: true` (a YAML bool) gets an error that
// says to quote it instead of a JSON type error.
type wire struct {
	APIVersion   string         `json:"apiVersion,omitempty"`
	Kind         string         `json:"kind,omitempty"`
	ConfigFlags  map[string]any `json:"configFlags,omitempty"`
	TestImageTag *string        `json:"testImageTag,omitempty"`
}

// Decode reads a GVisorConfiguration from JSON or YAML (a ContainerRuntime's providerConfig.Raw).
// An empty or null input yields the defaults (no flags). Decoding is strict: unknown and duplicate fields, a wrong
// apiVersion or kind, and non-string flag values are errors whose field paths start at providerConfig.
// A missing apiVersion or kind is taken to mean this one, as the original extension's decoder does (it fills them
// in from the type it decodes into), so providerConfigs that work there without them keep working here.
// Decode does not check flags against the allowlist (call Validate) nor fill in defaults (WithDefaults).
func Decode(raw []byte) (*GVisorConfiguration, error) {
	cfg := &GVisorConfiguration{}
	cfg.APIVersion, cfg.Kind = APIVersion, Kind
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return cfg, nil
	}

	// YAMLToJSONStrict refuses duplicate keys in YAML; sigsjson refuses them (and unknown fields) in JSON.
	js, err := yaml.YAMLToJSONStrict(trimmed)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(ProviderConfigPath, "(unparsable)",
			fmt.Sprintf("not valid YAML or JSON, or a key appears twice: %v", err))}.ToAggregate()
	}
	var w wire
	strictErrs, err := sigsjson.UnmarshalStrict(js, &w, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(ProviderConfigPath, "(undecodable)",
			fmt.Sprintf("must be a %s object with fields %s: %v", Kind, strings.Join(knownFields, ", "), err))}.ToAggregate()
	}

	var errs field.ErrorList
	for _, se := range strictErrs {
		p := ProviderConfigPath
		if m := strictField.FindStringSubmatch(se.Error()); m != nil {
			p = p.Child(m[2]) // name the offending field itself
		}
		errs = append(errs, field.Forbidden(p,
			fmt.Sprintf("%v; the fields of a %s are %s", se, Kind, strings.Join(knownFields, ", "))))
	}
	errs = append(errs, checkTypeMeta(w)...)

	flagsPath := ProviderConfigPath.Child("configFlags")
	if w.ConfigFlags != nil {
		cfg.ConfigFlags = make(map[string]string, len(w.ConfigFlags))
	}
	names := make([]string, 0, len(w.ConfigFlags))
	for name := range w.ConfigFlags {
		names = append(names, name)
	}
	slices.Sort(names) // errors in a stable order
	for _, name := range names {
		switch v := w.ConfigFlags[name].(type) {
		case string:
			cfg.ConfigFlags[name] = v
		default:
			errs = append(errs, field.Invalid(flagsPath.Key(name), v,
				fmt.Sprintf("must be a string: quote the value, for example %s: \"%v\"", name, v)))
		}
	}
	cfg.TestImageTag = w.TestImageTag

	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return cfg, nil
}

// checkTypeMeta refuses an apiVersion or kind other than ours. Empty ones are accepted: the original extension's
// decoder (apimachinery's UniversalDecoder into a GVisorConfiguration) defaults them from the target type.
func checkTypeMeta(w wire) field.ErrorList {
	var errs field.ErrorList
	if w.APIVersion != "" && w.APIVersion != APIVersion {
		errs = append(errs, field.NotSupported(ProviderConfigPath.Child("apiVersion"), w.APIVersion, []string{APIVersion}))
	}
	if w.Kind != "" && w.Kind != Kind {
		errs = append(errs, field.NotSupported(ProviderConfigPath.Child("kind"), w.Kind, []string{Kind}))
	}
	return errs
}
