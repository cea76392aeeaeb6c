// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"strings"
	"testing"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// The installation is rendered with the installer's sandbox proof on, unless the operator switched it off
// (--prove-sandbox=false, render.Settings.SkipSandboxProof).
func TestSandboxProofRendered(t *testing.T) {
	images, err := imagevector.ForVersion("v0.0.0-dev")
	if err != nil {
		t.Fatal(err)
	}
	r, err := render.New(images)
	if err != nil {
		t.Fatal(err)
	}
	cr := &extensionsv1alpha1.ContainerRuntime{
		ObjectMeta: metav1.ObjectMeta{Name: "gvisor", Namespace: "shoot--p--s"},
		Spec: extensionsv1alpha1.ContainerRuntimeSpec{
			BinaryPath:  "/var/bin/containerruntimes",
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: Type},
			WorkerPool: extensionsv1alpha1.ContainerRuntimeWorkerPool{Name: "pool-a",
				Selector: metav1.LabelSelector{MatchLabels: map[string]string{"worker.gardener.cloud/pool": "pool-a"}}},
		},
	}
	for skip, want := range map[bool]string{false: "--prove-sandbox=true", true: "--prove-sandbox=false"} {
		a := NewActuator(ActuatorOptions{Renderer: r, Settings: Settings{Render: render.Settings{SkipSandboxProof: skip}}})
		_, pool, err := a.desired(logr.Discard(), cr, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		inst := pool.Installation
		found := false
		for _, o := range inst.Objects() {
			if ds, ok := o.(*appsv1.DaemonSet); ok {
				found = strings.Contains(strings.Join(ds.Spec.Template.Spec.InitContainers[0].Command, " "), want) // the installer
			}
		}
		if !found {
			t.Errorf("SkipSandboxProof=%v: the installation does not run the installer with %s", skip, want)
		}
	}
}
