// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"context"
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
// each gvisor providerConfig must decode strictly and pass the controller's allowlist, value validation and runsc's
// judgement. The problems are returned at once, with the Shoot's own field path: at most v1alpha1.MaxErrors for
// the whole Shoot, then one error counting the rest, so that the answer costs what the Shoot's size costs.
func ValidateShoot(shoot *gardencorev1beta1.Shoot) field.ErrorList {
	errs, _ := validate(context.Background(), shoot, nil) // a background context never ends
	return errs
}

// ValidateShootUpdate checks newShoot like ValidateShoot, but only the workers whose gVisor part (CRI name and
// gvisor providerConfigs) differs from the worker of the same name in oldShoot: what was accepted before stays
// accepted, whatever else the update changes.
func ValidateShootUpdate(newShoot, oldShoot *gardencorev1beta1.Shoot) field.ErrorList {
	errs, _ := validate(context.Background(), newShoot, oldShoot) // a nil oldShoot makes every worker count as changed
	return errs
}

// validate is ValidateShootUpdate that stops, with ctx's error, at the first worker after ctx ended: the costly
// part of a review is its workers' providerConfigs, and a review whose caller is gone is judged for no one.
func validate(ctx context.Context, shoot, old *gardencorev1beta1.Shoot) (field.ErrorList, error) {
	if shoot == nil {
		return nil, nil
	}
	// One budget for the whole Shoot: its errors are listed up to v1alpha1.MaxErrors, the allowlist is named once
	// and runsc judges each distinct flag set once, however many workers share it.
	c := v1alpha1.NewChecker(v1alpha1.MaxErrors)
	before := oldWorkers(old)
	for i := range shoot.Spec.Provider.Workers {
		w := &shoot.Spec.Provider.Workers[i]
		if !hasGVisor(w) || unchanged(w, before) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		validateWorker(c, w, workersPath.Index(i))
	}
	return c.Errors(workersPath), nil
}

// validateWorker checks one worker that has a gvisor container runtime (w.CRI is set), on c's budget.
func validateWorker(c *v1alpha1.Checker, w *gardencorev1beta1.Worker, p *field.Path) {
	criPath := p.Child("cri")
	if w.CRI.Name != gardencorev1beta1.CRINameContainerD {
		c.Add(field.Invalid(criPath.Child("name"), string(w.CRI.Name),
			fmt.Sprintf("gVisor runs only with containerd: set cri.name to %q or remove the %s container runtime from worker %q",
				gardencorev1beta1.CRINameContainerD, ContainerRuntimeType, w.Name)))
	}
	for j, cr := range w.CRI.ContainerRuntimes {
		if cr.Type != ContainerRuntimeType {
			continue
		}
		var raw []byte
		if cr.ProviderConfig != nil {
			raw = cr.ProviderConfig.Raw
		}
		c.Parse(raw, criPath.Child("containerRuntimes").Index(j).Child("providerConfig"))
	}
}
