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

// Validate checks cfg against the flag allowlist and value types. fldPath is the path of the providerConfig
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

	// debug and strace output goes to the debug log; without a path on the host the shoot owner gets nothing.
	for _, needsLog := range []string{"debug", "strace"} {
		if cfg.ConfigFlags[needsLog] == "true" && cfg.ConfigFlags["debug-log"] == "" {
			errs = append(errs, field.Required(flagsPath.Key("debug-log"),
				fmt.Sprintf("%s: \"true\" needs a host path for its logs: set debug-log, for example \"/var/log/runsc/\"", needsLog)))
		}
	}

	if cfg.TestImageTag != nil && !imageTag.MatchString(*cfg.TestImageTag) {
		errs = append(errs, field.Invalid(fldPath.Child("testImageTag"), *cfg.TestImageTag,
			"must be an image tag: letters, digits, _ . - (at most 128, not starting with . or -)"))
	}
	return errs
}
