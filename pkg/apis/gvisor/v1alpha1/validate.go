// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// imageTag is the OCI distribution spec's tag grammar.
var imageTag = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// Validate checks cfg against the flag allowlist and value types, as written (before WithDefaults, whose defaults
// are valid by construction). fldPath is the path of the providerConfig (usually ProviderConfigPath). Every error
// names the flag (fldPath.configFlags[<flag>]) and says what is allowed. Parse runs it on what it decoded.
func Validate(cfg *GVisorConfiguration, fldPath *field.Path) field.ErrorList {
	if cfg == nil {
		return nil
	}
	errs := ValidateFlags(cfg.ConfigFlags, fldPath.Child("configFlags"))
	if cfg.TestImageTag != nil && !imageTag.MatchString(*cfg.TestImageTag) {
		errs = append(errs, field.Invalid(fldPath.Child("testImageTag"), *cfg.TestImageTag,
			"must be an image tag: letters, digits, _ . - (at most 128, not starting with . or -)"))
	}
	return errs
}

// ValidateFlags is the one rule set for runsc flags (the allowlist and its typed values): Validate applies it to a
// providerConfig, the renderer to flags given to it directly. flagsPath names the map (its errors name each flag).
// debug and strace without debug-log are valid: WithDefaults gives them DefaultDebugLog, as the original extension
// does. An explicit empty debug-log is refused (not an absolute path).
func ValidateFlags(flags map[string]string, flagsPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, name := range slices.Sorted(maps.Keys(flags)) { // errors in a stable order
		value := flags[name]
		p := flagsPath.Key(name)
		spec, ok := allowedFlags[name]
		switch {
		case !ok:
			errs = append(errs, field.Invalid(p, value,
				fmt.Sprintf("unknown or not allowed runsc flag %q; allowed flags: %s", name, strings.Join(AllowedFlags(), ", "))))
		case len(spec.enum) > 0:
			if !slices.Contains(spec.enum, value) {
				errs = append(errs, field.NotSupported(p, value, spec.enum))
			}
		case spec.check != nil:
			if err := spec.check(value); err != nil {
				errs = append(errs, field.Invalid(p, value, fmt.Sprintf("%v; allowed: %s", err, spec.allowed)))
			}
		}
	}
	return errs
}
