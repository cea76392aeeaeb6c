// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// imageTag is the OCI distribution spec's tag grammar.
var imageTag = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// Validate checks cfg against the flag allowlist and value types, as written (before WithDefaults, whose defaults
// are valid by construction), and has runsc judge the flags it would get (see ValidateFlags). fldPath is the path
// of the providerConfig (usually ProviderConfigPath). Every error names the flag (fldPath.configFlags[<flag>]) and
// says what is allowed; at most MaxErrors are listed. Parse runs it on what it decoded.
func Validate(cfg *GVisorConfiguration, fldPath *field.Path) field.ErrorList {
	c := NewChecker(MaxErrors)
	c.validate(cfg, fldPath)
	return c.Errors(fldPath)
}

// ValidateFlags is the one rule set for runsc flags: the project's allowlist with its typed values and path rules
// (the policy: what a shoot owner may set at all), then runsc's own flag parsing and configuration validation on
// the flags runsc would get (WithDefaults applied), so that no accepted set makes runsc refuse to start. Validate
// applies it to a providerConfig, the renderer to flags given to it directly. flagsPath names the map (its errors
// name each flag); at most MaxErrors are listed. debug and strace without debug-log are valid: WithDefaults gives
// them DefaultDebugLog, as the field's extension does. An explicit empty debug-log is refused.
func ValidateFlags(flags map[string]string, flagsPath *field.Path) field.ErrorList {
	c := NewChecker(MaxErrors)
	c.flags(flags, flagsPath)
	return c.Errors(flagsPath)
}

// validate is Validate on c's budget.
func (c *Checker) validate(cfg *GVisorConfiguration, fldPath *field.Path) {
	if cfg == nil {
		return
	}
	c.flags(cfg.ConfigFlags, fldPath.Child("configFlags"))
	if cfg.TestImageTag != nil && !imageTag.MatchString(*cfg.TestImageTag) && c.keep() {
		c.Add(field.Invalid(fldPath.Child("testImageTag"), *cfg.TestImageTag,
			"must be an image tag: letters, digits, _ . - (at most 128, not starting with . or -)"))
	}
}

// flags is ValidateFlags on c's budget. runsc judges only a set the policy accepts: its objections to a value
// the policy already refused would repeat that error less clearly.
func (c *Checker) flags(flags map[string]string, flagsPath *field.Path) {
	before := c.Count()
	c.flagsPolicy(flags, flagsPath)
	if c.Count() == before {
		c.Add(c.judge(WithDefaults(flags), flagsPath)...)
	}
}

// flagsPolicy adds the allowlist's errors: names, values and the combinations runsc is known to refuse.
func (c *Checker) flagsPolicy(flags map[string]string, flagsPath *field.Path) {
	before := c.Count()
	for _, name := range slices.Sorted(maps.Keys(flags)) { // errors in a stable order
		value := flags[name]
		p := flagsPath.Key(name)
		spec, ok := allowedFlags[name]
		switch {
		case !ok:
			c.unknownFlag(p, name, value)
		case len(spec.enum) > 0:
			if !slices.Contains(spec.enum, value) && c.keep() {
				c.Add(field.NotSupported(p, value, spec.enum))
			}
		case spec.check != nil:
			if err := spec.check(value); err != nil && c.keep() {
				c.Add(field.Invalid(p, value, fmt.Sprintf("%v; allowed: %s", err, spec.allowed)))
			}
		}
	}
	if c.Count() == before {
		c.Add(checkCombinations(flags, flagsPath)...)
	}
}

// checkCombinations refuses, with the fix, the combinations of allowed values that runsc refuses (runscJudge
// would refuse them too, in runsc's words).
func checkCombinations(flags map[string]string, flagsPath *field.Path) field.ErrorList {
	if flags["file-access"] == "shared" && flags["overlay2"] != "none" {
		return field.ErrorList{field.Invalid(flagsPath.Key("file-access"), "shared",
			"runsc refuses shared file access with an overlay on the root filesystem, and its default overlay2 is root:self: "+
				`set overlay2: "none" too, or leave file-access out`)}
	}
	return nil
}
