// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"fmt"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// ContainerRuntimeType is the container runtime type this admission validates (the controller's render.Type; a
// test keeps them equal without this package importing the renderer).
const ContainerRuntimeType = "gvisor"

var workersPath = field.NewPath("spec", "provider", "workers")

// ValidateShoot checks every worker of shoot that has a gvisor container runtime: the CRI must be containerd, and
// each gvisor providerConfig must decode strictly and pass the controller's allowlist and value validation.
// Every problem is returned at once, with the Shoot's own field path.
func ValidateShoot(shoot *gardencorev1beta1.Shoot) field.ErrorList {
	return validate(shoot, nil)
}

// ValidateShootUpdate checks newShoot like ValidateShoot, but only the workers whose gVisor part (CRI name and
// gvisor providerConfigs) differs from the worker of the same name in oldShoot: what was accepted before stays
// accepted, whatever else the update changes.
func ValidateShootUpdate(newShoot, oldShoot *gardencorev1beta1.Shoot) field.ErrorList {
	return validate(newShoot, oldShoot) // a nil oldShoot makes every worker count as changed
}

func validate(shoot, old *gardencorev1beta1.Shoot) field.ErrorList {
	if shoot == nil {
		return nil
	}
	var errs field.ErrorList
	for i := range shoot.Spec.Provider.Workers {
		w := &shoot.Spec.Provider.Workers[i]
		if _, has := partOf(w); !has || unchanged(w, old) {
			continue
		}
		errs = append(errs, validateWorker(w, workersPath.Index(i))...)
	}
	return errs
}

// validateWorker checks one worker that has a gvisor container runtime (w.CRI is set).
func validateWorker(w *gardencorev1beta1.Worker, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	criPath := p.Child("cri")
	if w.CRI.Name != gardencorev1beta1.CRINameContainerD {
		errs = append(errs, field.Invalid(criPath.Child("name"), string(w.CRI.Name),
			fmt.Sprintf("gVisor runs only with containerd: set cri.name to %q or remove the %s container runtime from worker %q",
				gardencorev1beta1.CRINameContainerD, ContainerRuntimeType, w.Name)))
	}
	for j, cr := range w.CRI.ContainerRuntimes {
		if cr.Type != ContainerRuntimeType {
			continue
		}
		pcPath := criPath.Child("containerRuntimes").Index(j).Child("providerConfig")
		var raw []byte
		if cr.ProviderConfig != nil {
			raw = cr.ProviderConfig.Raw
		}
		_, cfgErrs := v1alpha1.Parse(raw, pcPath)
		errs = append(errs, cfgErrs...)
	}
	return errs
}
