// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// containerRuntime is what gardenlet creates for a Shoot worker pool with a gvisor containerRuntime with
// providerConfig ("" for none). One that is no JSON (YAML, garbage: never what the API server stores) is the
// test's own change after gardenlet wrote the object.
func containerRuntime(pool, providerConfig string) *extensionsv1alpha1.ContainerRuntime {
	if providerConfig == "" {
		return gardenerfixtures.ContainerRuntime("shoot--foo--bar", pool, nil, v1beta1constants.GardenerOperationReconcile)
	}
	if !json.Valid([]byte(providerConfig)) {
		cr := containerRuntime(pool, "")
		cr.Spec.ProviderConfig = &runtime.RawExtension{Raw: []byte(providerConfig)}
		return cr
	}
	return gardenerfixtures.ContainerRuntime("shoot--foo--bar", pool, []byte(providerConfig), v1beta1constants.GardenerOperationReconcile)
}

// poolSelector is the matchLabels gardenlet selects pool's nodes with: the installation's node selector.
func poolSelector(pool string) map[string]string {
	return containerRuntime(pool, "").Spec.WorkerPool.Selector.MatchLabels
}

const istio = `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{"net-raw":"true"}}`

func TestForContainerRuntime(t *testing.T) {
	withExpressions := containerRuntime("gvisor", "")
	withExpressions.Spec.WorkerPool.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{
		{Key: "node.kubernetes.io/instance-type", Operator: metav1.LabelSelectorOpIn, Values: []string{"m5.large", "m5.xlarge"}},
		{Key: "example.com/no-gvisor", Operator: metav1.LabelSelectorOpDoesNotExist},
	}
	tests := []struct {
		name string
		cr   *extensionsv1alpha1.ContainerRuntime
		want render.InstallationValues
	}{
		{
			name: "Gardener's ContainerRuntime with Istio's net-raw",
			cr:   containerRuntime("gvisor", istio),
			want: render.InstallationValues{WorkerPool: "gvisor", BinaryPath: "/var/bin/containerruntimes",
				NodeSelector: poolSelector("gvisor"), ConfigFlags: map[string]string{"net-raw": "true"}},
		},
		{
			name: "no providerConfig",
			cr:   containerRuntime("pool-1", ""),
			want: render.InstallationValues{WorkerPool: "pool-1", BinaryPath: "/var/bin/containerruntimes",
				NodeSelector: poolSelector("pool-1")},
		},
		{
			name: "matchExpressions become one required node affinity term",
			cr:   withExpressions,
			want: render.InstallationValues{WorkerPool: "gvisor", BinaryPath: "/var/bin/containerruntimes",
				NodeSelector: poolSelector("gvisor"),
				NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
						{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.large", "m5.xlarge"}},
						{Key: "example.com/no-gvisor", Operator: corev1.NodeSelectorOpDoesNotExist},
					}}},
				}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := render.ForContainerRuntime(tt.cr)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestForContainerRuntimeErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*extensionsv1alpha1.ContainerRuntime)
		want   []string
	}{
		{"wrong type", func(cr *extensionsv1alpha1.ContainerRuntime) { cr.Spec.Type = "kata" }, []string{`spec.type: Unsupported value: "kata"`, `"gvisor"`}},
		{"pool name not a DNS label", func(cr *extensionsv1alpha1.ContainerRuntime) { cr.Spec.WorkerPool.Name = "Pool.1" }, []string{`spec.workerPool.name: Invalid value: "Pool.1"`}},
		{"missing binaryPath", func(cr *extensionsv1alpha1.ContainerRuntime) { cr.Spec.BinaryPath = "" }, []string{"spec.binaryPath: Required value", "/var/bin/containerruntimes"}},
		{"relative binaryPath", func(cr *extensionsv1alpha1.ContainerRuntime) { cr.Spec.BinaryPath = "bin" }, []string{`spec.binaryPath: Invalid value: "bin"`, "absolute"}},
		{"binaryPath with ..", func(cr *extensionsv1alpha1.ContainerRuntime) { cr.Spec.BinaryPath = "/var/bin/../../etc" }, []string{"spec.binaryPath", `use "/etc"`}},
		{"empty selector", func(cr *extensionsv1alpha1.ContainerRuntime) { cr.Spec.WorkerPool.Selector = metav1.LabelSelector{} }, []string{"spec.workerPool.selector: Required value", "worker.gardener.cloud/pool: gvisor"}},
		{"bad selector operator", func(cr *extensionsv1alpha1.ContainerRuntime) {
			cr.Spec.WorkerPool.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Gt", Values: []string{"1"}}}
		}, []string{"spec.workerPool.selector.matchExpressions[0].operator"}},
		{"flag outside the allowlist", func(cr *extensionsv1alpha1.ContainerRuntime) {
			cr.Spec.ProviderConfig.Raw = []byte(`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{"net-raw":"true","network":"host"}}`)
		}, []string{"providerConfig.configFlags[network]", "allowed flags: cpu-num-from-quota"}},
		{"unknown providerConfig field", func(cr *extensionsv1alpha1.ContainerRuntime) {
			cr.Spec.ProviderConfig.Raw = []byte(`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","flags":{}}`)
		}, []string{"providerConfig.flags", `unknown field "flags"`}},
		{"everything wrong at once is reported at once", func(cr *extensionsv1alpha1.ContainerRuntime) {
			cr.Spec.WorkerPool.Name = "_"
			cr.Spec.BinaryPath = "x"
			cr.Spec.ProviderConfig.Raw = []byte(`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{"platform":"vm"}}`)
		}, []string{"spec.workerPool.name", "spec.binaryPath", "providerConfig.configFlags[platform]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := containerRuntime("gvisor", istio)
			tt.mutate(cr)
			_, err := render.ForContainerRuntime(cr)
			if err == nil {
				t.Fatal("ForContainerRuntime() succeeded, want an error")
			}
			for _, s := range tt.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			// How the controller sees it: wrapped with %w, still a configuration problem with Gardener's code.
			wrapped := errors.Join(errors.New("reconciling"), err)
			if !render.IsConfigurationError(wrapped) {
				t.Error("IsConfigurationError() = false")
			}
			if diff := cmp.Diff([]gardencorev1beta1.ErrorCode{gardencorev1beta1.ErrorConfigurationProblem}, helper.ExtractErrorCodes(wrapped)); diff != "" {
				t.Errorf("Gardener's ExtractErrorCodes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTestImageTag: the providerConfig is decoded once, and its testImageTag comes with the pool's objects (the
// controller warns that it has no effect).
func TestTestImageTag(t *testing.T) {
	r := newRenderer(t, "v0.0.0-dev", "")
	for raw, want := range map[string]string{
		`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","testImageTag":"v0.5.1"}`: "v0.5.1",
		istio: "",
	} {
		out, err := r.Shoot(render.Settings{}, render.ShootInput{ContainerRuntimes: []*extensionsv1alpha1.ContainerRuntime{containerRuntime("gvisor", raw)}})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if tag := out.Pools[0].Config.TestImageTag; tag != nil {
			got = *tag
		}
		if got != want {
			t.Errorf("%s: testImageTag %q, want %q", raw, got, want)
		}
	}
}

// TestExampleContainerRuntimeIsGardenlets: the package example's ContainerRuntime (what importers copy) is the one
// gardenlet writes for its pool and providerConfig.
func TestExampleContainerRuntimeIsGardenlets(t *testing.T) {
	example := exampleContainerRuntime()
	want := gardenerfixtures.ContainerRuntime(example.Namespace, example.Spec.WorkerPool.Name, example.Spec.ProviderConfig.Raw, "")
	if example.Name != want.Name {
		t.Errorf("the example names the ContainerRuntime %q, gardenlet %q", example.Name, want.Name)
	}
	if diff := cmp.Diff(want.Spec, example.Spec); diff != "" {
		t.Errorf("the example's spec differs from gardenlet's (-gardenlet +example):\n%s", diff)
	}
}
