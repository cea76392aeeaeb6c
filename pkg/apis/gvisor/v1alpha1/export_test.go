// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import "k8s.io/apimachinery/pkg/util/validation/field"

// Decode is decode for the tests of the decoding alone: the errors as one error, no configuration with them.
func Decode(raw []byte) (*GVisorConfiguration, error) {
	cfg, errs := decode(raw, ProviderConfigPath)
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return cfg, nil
}

// FlagsPath is where the tests' flag errors are rooted.
var FlagsPath = ProviderConfigPath.Child("configFlags")

// RunscJudge is runsc's verdict alone (runscJudge) on flags as given, its refusals under FlagsPath.
func RunscJudge(flags map[string]string) field.ErrorList {
	var errs field.ErrorList
	for _, r := range runscJudge(flags) {
		errs = append(errs, r.at(FlagsPath))
	}
	return errs
}

// PolicyErrors are the allowlist's errors alone (without runsc's judgement) on flags as written.
func PolicyErrors(flags map[string]string) field.ErrorList {
	c := NewChecker(len(flags) + 1)
	c.flagsPolicy(flags, FlagsPath)
	return c.Errors(FlagsPath)
}

// ExpandWorstCase is expandWorstCase: the debug-log path with every variable at its longest.
func ExpandWorstCase(debugLog string) string { return expandWorstCase(debugLog) }
