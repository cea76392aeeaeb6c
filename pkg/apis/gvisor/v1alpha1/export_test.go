// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

// Decode is decode for the tests of the decoding alone: the errors as one error, no configuration with them.
func Decode(raw []byte) (*GVisorConfiguration, error) {
	cfg, errs := decode(raw, ProviderConfigPath)
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return cfg, nil
}
