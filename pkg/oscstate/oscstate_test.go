// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package oscstate

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	nodeagentconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/nodeagent/v1alpha1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

func oscWith(op *extensionsv1alpha1.PluginPathOperation, files ...string) *extensionsv1alpha1.OperatingSystemConfig {
	osc := &extensionsv1alpha1.OperatingSystemConfig{}
	osc.Spec.CRIConfig = &extensionsv1alpha1.CRIConfig{Containerd: &extensionsv1alpha1.ContainerdConfig{Plugins: []extensionsv1alpha1.PluginConfig{
		{Path: []string{"io.containerd.grpc.v1.cri", "registry"}},
		{Op: op, Path: oscwebhook.PluginPath()},
	}}}
	for _, f := range files {
		osc.Spec.Files = append(osc.Spec.Files, extensionsv1alpha1.File{Path: f})
	}
	return osc
}

func TestClassify(t *testing.T) {
	bin := extensionsv1alpha1.ContainerDRuntimeContainersBinFolder
	full := oscWith(nil, bin+"/runsc", "/etc/containerd/runsc.toml", "/etc/kubelet.conf", bin+"/runc-other")
	if got := Classify(full); !got.Carries() || got.Clean() || !slices.Equal(got.Files, []string{"/etc/containerd/runsc.toml", bin + "/runsc"}) {
		t.Errorf("add entry with files: %+v", got)
	}
	removal := oscWith(ptr.To(extensionsv1alpha1.RemovePluginPathOperation))
	if got := Classify(removal); got.Entry != Remove || got.Carries() || got.Clean() {
		t.Errorf("remove entry: %+v", got)
	}
	plain := &extensionsv1alpha1.OperatingSystemConfig{}
	if got := Classify(plain); !got.Clean() {
		t.Errorf("nothing of ours: %+v", got)
	}
	if got := Classify(oscWith(ptr.To(extensionsv1alpha1.AddPluginPathOperation))); got.Entry != Add || got.Carries() {
		t.Errorf("add entry without files does not deliver gVisor: %+v", got)
	}
}

func TestNodeReports(t *testing.T) {
	n := &corev1.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{
		Type: nodeagentconfigv1alpha1.ConditionTypeSystemdUnitsReady, Status: corev1.ConditionFalse,
		Message: "foo.service: failed; " + oscwebhook.ProofUnitName + ": failed",
	}}}}
	if got := proofFailure(n); got != oscwebhook.ProofUnitName+": failed" {
		t.Errorf("proofFailure = %q", got)
	}
	n.Status.Conditions[0].Message = oscwebhook.ProofTimerName + ": inactive but should be enabled; foo.service: failed"
	if got := proofFailure(n); got != oscwebhook.ProofTimerName+": inactive but should be enabled" {
		t.Errorf("a stopped proof timer: proofFailure = %q", got)
	}
	n.Status.Conditions[0].Message = "foo.service: failed"
	if got := proofFailure(n); got != "" {
		t.Errorf("another unit's failure is not ours: %q", got)
	}

	// A node of pool a as gardenlet labels it, and the pool's secret before and after a rolling update (a new
	// machine image version gives the pool a new key).
	shoot := gardenerfixtures.Shoot("p", "s", "1.33.4", gardenerfixtures.Worker("a", gardenerfixtures.GVisor(nil)))
	old := gardenerfixtures.Node(shoot, "a", "n0")
	current := gardenerfixtures.OperatingSystemConfigs(shoot)["a"].SecretName
	shoot.Spec.Provider.Workers[0].Machine.Image.Version = ptr.To("1877.1.0")
	rolled := gardenerfixtures.OperatingSystemConfigs(shoot)["a"].SecretName
	if old.Labels[v1beta1constants.LabelWorkerPoolGardenerNodeAgentSecretName] != current || rolled == current {
		t.Fatalf("node label %v, secret %s before and %s after the roll", old.Labels, current, rolled)
	}
	if !beingReplaced(old, rolled) || beingReplaced(old, current) {
		t.Error("a node on an older secret of the pool is being replaced, one on the current secret is not")
	}
	tainted := &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: mcmPreferNoScheduleKey, Effect: corev1.TaintEffectPreferNoSchedule}}}}
	if !beingReplaced(tainted, "x") {
		t.Error("a node of an old machine set is being replaced")
	}
}
