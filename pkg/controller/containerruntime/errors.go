package containerruntime

import (
	"fmt"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// inputError adds which ContainerRuntime and pool an error of render.ForContainerRuntime is about. A
// *render.ConfigurationError (wrapped with %w) carries Gardener's error code ERR_CONFIGURATION_PROBLEM, which the
// extension library copies into status.lastError.codes: the shoot owner has to change the Shoot, retrying does
// not help. Other errors stay uncoded and are retried.
func inputError(cr *extensionsv1alpha1.ContainerRuntime, err error) error {
	what := "rendering values for"
	if render.IsConfigurationError(err) {
		what = "invalid"
	}
	return fmt.Errorf("%s ContainerRuntime %s/%s (worker pool %q): %w", what, cr.Namespace, cr.Name, cr.Spec.WorkerPool.Name, err)
}
