package v1alpha1

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// imageTag is the OCI distribution spec's tag grammar.
var imageTag = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// Validate checks cfg against the flag allowlist and value types, as written (before WithDefaults, whose defaults
// are valid by construction). fldPath is the path of the providerConfig
// (usually ProviderConfigPath). Every error names the flag (fldPath.configFlags[<flag>]) and says what is allowed.
func Validate(cfg *GVisorConfiguration, fldPath *field.Path) field.ErrorList {
	if cfg == nil {
		return nil
	}
	var errs field.ErrorList
	flagsPath := fldPath.Child("configFlags")

	names := make([]string, 0, len(cfg.ConfigFlags))
	for name := range cfg.ConfigFlags {
		names = append(names, name)
	}
	slices.Sort(names) // errors in a stable order

	for _, name := range names {
		value := cfg.ConfigFlags[name]
		spec, ok := allowedFlags[name]
		if !ok {
			errs = append(errs, field.Invalid(flagsPath.Key(name), value,
				fmt.Sprintf("unknown or not allowed runsc flag %q; allowed flags: %s", name, strings.Join(AllowedFlags(), ", "))))
			continue
		}
		p := flagsPath.Key(name)
		switch {
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

	// debug and strace without debug-log are valid: WithDefaults gives them DefaultDebugLog, as the original
	// extension does. An explicit empty debug-log is refused above (not an absolute path).

	if cfg.TestImageTag != nil && !imageTag.MatchString(*cfg.TestImageTag) {
		errs = append(errs, field.Invalid(fldPath.Child("testImageTag"), *cfg.TestImageTag,
			"must be an image tag: letters, digits, _ . - (at most 128, not starting with . or -)"))
	}
	return errs
}
