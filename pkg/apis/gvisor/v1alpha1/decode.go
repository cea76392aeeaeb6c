// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// ProviderConfigPath is the usual root of the field paths in Parse's errors: the providerConfig of the
// ContainerRuntime (and of the Shoot's worker containerRuntimes entry it comes from).
var ProviderConfigPath = field.NewPath("providerConfig")

// knownFields are the top-level fields of a GVisorConfiguration, listed in "unknown field" errors.
var knownFields = []string{"apiVersion", "kind", "configFlags", "sandboxMetrics", "testImageTag"}

// strictField extracts the field name from sigs.k8s.io/json's strict errors (`unknown field "x"`,
// `duplicate field "x"`).
var strictField = regexp.MustCompile(`^(unknown|duplicate) field "([^"]*)"`)

// wire is what decode reads before checking value types, so that `net-raw: true` (a YAML bool) or a testImageTag
// that is a number gets an error naming that field instead of a JSON type error for the whole object, and the rest
// of the object is still read (and validated: every error at once).
type wire struct {
	APIVersion     string `json:"apiVersion,omitempty"`
	Kind           string `json:"kind,omitempty"`
	ConfigFlags    any    `json:"configFlags,omitempty"`
	SandboxMetrics any    `json:"sandboxMetrics,omitempty"`
	TestImageTag   any    `json:"testImageTag,omitempty"`
}

// Parse is the one way in for a providerConfig (a ContainerRuntime's providerConfig.Raw, a Shoot worker's
// containerRuntimes[].providerConfig): it decodes raw (JSON or YAML) strictly and validates what it read with
// Validate (the allowlist, then runsc's own judgement), reporting the problems at once (at most MaxErrors, and how
// many more there were) with field paths rooted at fldPath (usually ProviderConfigPath). An empty or null input
// yields the defaults (no flags). Decoding refuses an input over MaxProviderConfigBytes, unknown and duplicate
// fields, a wrong apiVersion or kind and non-string values; a missing apiVersion or kind is taken to mean this
// one, as the field's extension's decoder does (it fills them in from the type it decodes into), so
// providerConfigs that work there without them keep working here. Defaults are not filled in (WithDefaults, which
// the renderer applies).
func Parse(raw []byte, fldPath *field.Path) (*GVisorConfiguration, field.ErrorList) {
	c := NewChecker(MaxErrors)
	if cfg := c.Parse(raw, fldPath); cfg != nil {
		return cfg, nil
	}
	return nil, c.Errors(fldPath)
}

// Parse is Parse on c's error budget: the configuration, or nil when raw has errors (added to c).
func (c *Checker) Parse(raw []byte, fldPath *field.Path) *GVisorConfiguration {
	if len(raw) > MaxProviderConfigBytes {
		tooLong := field.TooLong(fldPath, nil, MaxProviderConfigBytes)
		tooLong.Detail = fmt.Sprintf("is %d bytes, may not be more than %d (every allowed flag fits in 2 KiB): keep only the fields of a %s",
			len(raw), MaxProviderConfigBytes, Kind)
		c.Add(tooLong)
		return nil
	}
	before := c.Count()
	cfg, errs := decode(raw, fldPath)
	c.Add(errs...)
	c.validate(cfg, fldPath)
	if cfg == nil || c.Count() > before {
		return nil
	}
	return cfg
}

// decode reads raw strictly. Besides its errors it returns what it could read (the flags whose values are strings,
// a string testImageTag), so that Parse validates those too; nil only when nothing is readable.
func decode(raw []byte, fldPath *field.Path) (*GVisorConfiguration, field.ErrorList) {
	cfg := &GVisorConfiguration{}
	cfg.APIVersion, cfg.Kind = APIVersion, Kind
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return cfg, nil
	}

	js, err := toJSON(trimmed)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(fldPath, "(unparsable)",
			fmt.Sprintf("not valid YAML or JSON, or a key appears twice: %v", err))}
	}
	var w wire
	strictErrs, err := sigsjson.UnmarshalStrict(js, &w, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(fldPath, "(undecodable)",
			fmt.Sprintf("must be a %s object with fields %s: %v", Kind, strings.Join(knownFields, ", "), err))}
	}

	var errs field.ErrorList
	for _, se := range strictErrs {
		p := fldPath
		if m := strictField.FindStringSubmatch(se.Error()); m != nil {
			p = p.Child(m[2]) // name the offending field itself
			if flag, nested := strings.CutPrefix(m[2], "configFlags."); nested {
				p = fldPath.Child("configFlags").Key(flag) // a flag given twice
			}
		}
		errs = append(errs, field.Forbidden(p,
			fmt.Sprintf("%v; the fields of a %s are %s", se, Kind, strings.Join(knownFields, ", "))))
	}
	errs = append(errs, checkTypeMeta(w, fldPath)...)
	var flagErrs field.ErrorList
	cfg.ConfigFlags, flagErrs = decodeFlags(w.ConfigFlags, fldPath.Child("configFlags"))
	errs = append(errs, flagErrs...)
	var metricsErrs field.ErrorList
	cfg.SandboxMetrics, metricsErrs = decodeSandboxMetrics(w.SandboxMetrics, fldPath.Child("sandboxMetrics"))
	errs = append(errs, metricsErrs...)
	switch tag := w.TestImageTag.(type) {
	case nil:
	case string:
		cfg.TestImageTag = &tag
	default:
		errs = append(errs, field.Invalid(fldPath.Child("testImageTag"), tag, "must be a string (an image tag)"))
	}
	return cfg, errs
}

// toJSON returns raw as JSON. What the API server stores (every Shoot's and ContainerRuntime's providerConfig) is
// JSON already and is used as it is: converting it through YAML cost a third of the admission's time for a Shoot
// with thousands of workers. sigsjson refuses duplicate keys in JSON at any depth, as YAMLToJSONStrict does in
// YAML, which the rest (a file given to gvisor-render, the tests) is read as.
func toJSON(raw []byte) ([]byte, error) {
	if raw[0] == '{' && json.Valid(raw) {
		return raw, nil
	}
	return yaml.YAMLToJSONStrict(raw)
}

// decodeFlags keeps the flags whose values are strings and names every other one, in a stable order.
func decodeFlags(v any, p *field.Path) (map[string]string, field.ErrorList) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, field.ErrorList{field.Invalid(p, v, "must be an object: runsc flag name -> string value, for example net-raw: \"true\"")}
	}
	flags := make(map[string]string, len(m))
	var errs field.ErrorList
	for _, name := range slices.Sorted(maps.Keys(m)) { // errors in a stable order
		switch v := m[name].(type) {
		case string:
			flags[name] = v
		default:
			errs = append(errs, field.Invalid(p.Key(name), v,
				fmt.Sprintf("must be a string: quote the value, for example %s: \"%v\"", name, v)))
		}
	}
	return flags, errs
}

// checkTypeMeta refuses an apiVersion or kind other than ours. Empty ones are accepted: the field's extension's
// decoder (apimachinery's UniversalDecoder into a GVisorConfiguration) defaults them from the target type.
func checkTypeMeta(w wire, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if w.APIVersion != "" && w.APIVersion != APIVersion {
		errs = append(errs, field.NotSupported(fldPath.Child("apiVersion"), w.APIVersion, []string{APIVersion}))
	}
	if w.Kind != "" && w.Kind != Kind {
		errs = append(errs, field.NotSupported(fldPath.Child("kind"), w.Kind, []string{Kind}))
	}
	return errs
}
