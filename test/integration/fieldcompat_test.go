// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// fieldDebugOnly is a providerConfig as shoots written for the field's extension carry it: debug on its own (that
// extension's README) and no apiVersion/kind (its decoder fills them in).
const fieldDebugOnly = `
configFlags:
  debug: "true"
`

// TestFieldDebugOnlyReconciles: a ContainerRuntime with the field's extension's debug-only providerConfig reconciles
// (it was refused before), and the runsc.toml that reaches the shoot logs where the field's extension logs.
func TestFieldDebugOnlyReconciles(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "fielddebug", "1.33.4")
	sh.createRuntime("debug", fieldDebugOnly)
	sh.waitOperation("debug", "Create", "Succeeded")
	sh.waitPoolHealthy("debug")

	cm := &corev1.ConfigMap{}
	must(t, sh.c.Get(context.Background(), client.ObjectKey{Namespace: "kube-system", Name: "gvisor-installation-debug-runsc"}, cm))
	want := "[runsc_config]\n  debug = \"true\"\n  debug-log = \"" + v1alpha1.DefaultDebugLog + "\"\n"
	if got := cm.Data["runsc.toml"]; got != want {
		t.Errorf("runsc.toml in the shoot:\n%s\nwant:\n%s", got, want)
	}
}
