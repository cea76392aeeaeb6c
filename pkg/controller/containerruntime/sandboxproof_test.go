// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"strings"
	"testing"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// The installation is rendered with the installer's sandbox proof on, unless the operator switched it off
// (--prove-sandbox=false, render.Settings.SkipSandboxProof).
func TestSandboxProofRendered(t *testing.T) {
	r := devRenderer(t)
	cr := poolAContainerRuntime()
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
