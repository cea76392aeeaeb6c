package render

import (
	"fmt"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// Type is the ContainerRuntime type this extension handles.
const Type = "gvisor"

// ForContainerRuntime maps a ContainerRuntime of type gvisor to the values of its pool's installation chart:
// spec.workerPool.name, the selector's matchLabels (node selector) and matchExpressions (node affinity),
// spec.binaryPath and the runsc flags of spec.providerConfig (decoded strictly and checked against the
// allowlist). Every problem is reported at once in a *ConfigurationError naming the field.
func ForContainerRuntime(cr *extensionsv1alpha1.ContainerRuntime) (InstallationValues, error) {
	if cr == nil {
		return InstallationValues{}, fmt.Errorf("ForContainerRuntime: nil ContainerRuntime")
	}
	v, errs := poolValues(cr)
	var raw []byte
	if cr.Spec.ProviderConfig != nil {
		raw = cr.Spec.ProviderConfig.Raw
	}
	cfg, err := v1alpha1.Decode(raw)
	if err != nil {
		errs = append(errs, asFieldErrors(err)...)
	} else {
		errs = append(errs, v1alpha1.Validate(cfg, v1alpha1.ProviderConfigPath)...)
	}
	if len(errs) > 0 {
		return InstallationValues{}, &ConfigurationError{Errs: errs}
	}
	v.ConfigFlags = copyMap(cfg.ConfigFlags)
	return v, nil
}

// ForUninstall maps a ContainerRuntime of type gvisor to the values of its pool's installation chart in
// uninstall mode (Mode ModeUninstall), for removing gVisor from the pool: the pool's name, selector and
// binaryPath as in ForContainerRuntime. spec.providerConfig is not read, so a providerConfig that no longer
// decodes (an older or broken one) cannot block the removal. Set ReadinessGate as for the install.
func ForUninstall(cr *extensionsv1alpha1.ContainerRuntime) (InstallationValues, error) {
	if cr == nil {
		return InstallationValues{}, fmt.Errorf("ForUninstall: nil ContainerRuntime")
	}
	v, errs := poolValues(cr)
	if len(errs) > 0 {
		return InstallationValues{}, &ConfigurationError{Errs: errs}
	}
	v.Mode = ModeUninstall
	return v, nil
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

// asFieldErrors unpacks the aggregate of field errors v1alpha1.Decode returns.
func asFieldErrors(err error) field.ErrorList {
	type aggregate interface{ Errors() []error }
	var out field.ErrorList
	if agg, ok := err.(aggregate); ok {
		for _, e := range agg.Errors() {
			if fe, ok := e.(*field.Error); ok {
				out = append(out, fe)
				continue
			}
			out = append(out, field.Invalid(v1alpha1.ProviderConfigPath, "", e.Error()))
		}
		return out
	}
	return field.ErrorList{field.Invalid(v1alpha1.ProviderConfigPath, "", err.Error())}
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

// TestImageTag returns the providerConfig's testImageTag of cr and whether it is set. It decodes strictly and
// reports "not set" for a providerConfig that does not decode (ForContainerRuntime reports that error).
// The field is kept so that old configurations decode; the controller decides what it means.
func TestImageTag(cr *extensionsv1alpha1.ContainerRuntime) (string, bool) {
	if cr == nil || cr.Spec.ProviderConfig == nil {
		return "", false
	}
	cfg, err := v1alpha1.Decode(cr.Spec.ProviderConfig.Raw)
	if err != nil || cfg.TestImageTag == nil {
		return "", false
	}
	return *cfg.TestImageTag, true
}
