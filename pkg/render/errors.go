// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"errors"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ConfigurationError is a problem with the user's input (ContainerRuntime or typed values) that no retry fixes.
// Each entry of Errs names the field, the bad value and what is allowed.
type ConfigurationError struct {
	Errs field.ErrorList
}

// Error lists every field error.
func (e *ConfigurationError) Error() string {
	return "invalid gVisor configuration: " + e.Errs.ToAggregate().Error()
}

// Codes implements Gardener's helper.Coder: the extension library copies them into status.lastError.codes.
func (e *ConfigurationError) Codes() []gardencorev1beta1.ErrorCode {
	return []gardencorev1beta1.ErrorCode{gardencorev1beta1.ErrorConfigurationProblem}
}

// IsConfigurationError reports whether err (or an error it wraps) is a *ConfigurationError.
func IsConfigurationError(err error) bool {
	var ce *ConfigurationError
	return errors.As(err, &ce)
}

// configurationError returns nil for no errors, else a *ConfigurationError.
func configurationError(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return &ConfigurationError{Errs: errs}
}
