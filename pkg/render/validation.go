// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"fmt"
	"path"
	"regexp"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// MaxWorkerPoolNameLength keeps gvisor-installation-<pool> a DNS label (63), so the DaemonSet name can also be a
// label value. Gardener itself limits pool names to 15 characters.
const MaxWorkerPoolNameLength = 63 - len("gvisor-installation-")

// Field paths of the ContainerRuntime that errors name.
var (
	workerPoolNamePath = field.NewPath("spec", "workerPool", "name")
	selectorPath       = field.NewPath("spec", "workerPool", "selector")
	binaryPathPath     = field.NewPath("spec", "binaryPath")
)

// safeHostPath: characters that need no quoting in YAML, TOML or a command line.
var safeHostPath = regexp.MustCompile(`^(/[A-Za-z0-9._+-]+)+$`)

func validateWorkerPoolName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "the worker pool's name (Gardener sets it from the Shoot's worker)")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	if len(name) > MaxWorkerPoolNameLength {
		errs = append(errs, field.TooLong(p, name, MaxWorkerPoolNameLength))
	}
	return errs
}

func validateBinaryPath(bp string, p *field.Path) field.ErrorList {
	switch {
	case bp == "":
		return field.ErrorList{field.Required(p, "the host directory for runsc, for example /var/bin/containerruntimes (Gardener's default)")}
	case !path.IsAbs(bp):
		return field.ErrorList{field.Invalid(p, bp, "must be an absolute path, for example /var/bin/containerruntimes")}
	case path.Clean(bp) != bp:
		return field.ErrorList{field.Invalid(p, bp, fmt.Sprintf("must be a clean path (no trailing /, //, . or ..): use %q", path.Clean(bp)))}
	case bp == "/":
		return field.ErrorList{field.Invalid(p, bp, "must not be the host's root directory")}
	case !safeHostPath.MatchString(bp):
		return field.ErrorList{field.Invalid(p, bp, "may only contain letters, digits and . _ + - between slashes")}
	}
	return nil
}

func validateLabels(labels map[string]string, p *field.Path) field.ErrorList {
	return metav1validation.ValidateLabels(labels, p)
}

func validateRuntimeClassValues(v RuntimeClassValues) field.ErrorList {
	return validateLabels(v.NodeSelector, field.NewPath("nodeSelector"))
}

// validateInstallationValues checks typed values given directly to Installation (Shoot reads them from the
// ContainerRuntime, checked there), naming the InstallationValues fields.
func validateInstallationValues(v InstallationValues) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateWorkerPoolName(v.WorkerPool, field.NewPath("workerPool"))...)
	errs = append(errs, validateBinaryPath(v.BinaryPath, field.NewPath("binaryPath"))...)
	errs = append(errs, validateLabels(v.NodeSelector, field.NewPath("nodeSelector"))...)
	switch v.Mode {
	case "", ModeInstall:
		errs = append(errs, v1alpha1.ValidateFlags(v.ConfigFlags, field.NewPath("configFlags"))...)
		if v.ReproveInterval != 0 {
			if err := ValidateReproveInterval(v.ReproveInterval); err != nil {
				errs = append(errs, field.Invalid(field.NewPath("reproveInterval"), v.ReproveInterval.String(), err.Error()))
			}
		}
	case ModeUninstall:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("mode"), v.Mode, []Mode{ModeInstall, ModeUninstall}))
	}
	return errs
}
