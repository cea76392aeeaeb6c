// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// Type is the ContainerRuntime type this extension handles.
const Type = "gvisor"

// readContainerRuntime reads a ContainerRuntime of type gvisor once: the values of its pool's installation chart
// (spec.workerPool.name, the selector's matchLabels as node selector and matchExpressions as node affinity,
// spec.binaryPath) and, to install, its providerConfig (v1alpha1.Parse: decoded strictly and checked against the
// allowlist once; its flags become ConfigFlags). To uninstall (Mode ModeUninstall) the providerConfig is not read,
// so one that no longer decodes (an older or broken one) cannot block the removal; the Config is then nil. Every
// problem is reported at once in a *ConfigurationError naming the field.
func readContainerRuntime(cr *extensionsv1alpha1.ContainerRuntime, uninstall bool) (InstallationValues, *v1alpha1.GVisorConfiguration, error) {
	v, errs := poolValues(cr)
	if uninstall {
		v.Mode = ModeUninstall
		return v, nil, configurationError(errs)
	}
	var raw []byte
	if cr.Spec.ProviderConfig != nil {
		raw = cr.Spec.ProviderConfig.Raw
	}
	cfg, cfgErrs := v1alpha1.Parse(raw, v1alpha1.ProviderConfigPath)
	if err := configurationError(append(errs, cfgErrs...)); err != nil {
		return InstallationValues{}, nil, err
	}
	v.ConfigFlags = copyMap(cfg.ConfigFlags)
	return v, cfg, nil
}

// poolValues checks and maps what locates the pool's nodes: type, pool name, binaryPath and selector.
func poolValues(cr *extensionsv1alpha1.ContainerRuntime) (InstallationValues, field.ErrorList) {
	var errs field.ErrorList
	if cr.Spec.Type != Type {
		errs = append(errs, field.NotSupported(field.NewPath("spec", "type"), cr.Spec.Type, []string{Type}))
	}
	errs = append(errs, validateWorkerPoolName(cr.Spec.WorkerPool.Name, workerPoolNamePath)...)
	errs = append(errs, validateBinaryPath(cr.Spec.BinaryPath, binaryPathPath)...)

	sel := cr.Spec.WorkerPool.Selector
	errs = append(errs, metav1validation.ValidateLabelSelector(&sel, metav1validation.LabelSelectorValidationOptions{}, selectorPath)...)
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		// An empty selector would install gVisor on every containerd node of the shoot, not just this pool's.
		errs = append(errs, field.Required(selectorPath,
			"the pool's node selector, for example matchLabels worker.gardener.cloud/pool: "+cr.Spec.WorkerPool.Name))
	}
	return InstallationValues{
		WorkerPool:   cr.Spec.WorkerPool.Name,
		BinaryPath:   cr.Spec.BinaryPath,
		NodeSelector: copyMap(sel.MatchLabels),
		NodeAffinity: nodeAffinity(sel.MatchExpressions),
	}, errs
}

// nodeAffinity turns label selector expressions into a required node affinity with one term: label selector
// requirements are ANDed, and so are the expressions of one node selector term. The operators In, NotIn, Exists
// and DoesNotExist have the same names and meaning in both APIs.
func nodeAffinity(exprs []metav1.LabelSelectorRequirement) *corev1.NodeAffinity {
	if len(exprs) == 0 {
		return nil
	}
	term := corev1.NodeSelectorTerm{}
	for _, e := range exprs {
		term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{
			Key:      e.Key,
			Operator: corev1.NodeSelectorOperator(e.Operator),
			Values:   append([]string(nil), e.Values...),
		})
	}
	return &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}},
	}
}

func copyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
