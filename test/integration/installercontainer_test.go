// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// installerContainer is the DaemonSet's installer container (render.InstallerContainer). A DaemonSet without one
// is a test failure: the zero container has no command.
func installerContainer(ds *appsv1.DaemonSet) *corev1.Container {
	if c := render.InstallerContainer(&ds.Spec.Template.Spec); c != nil {
		return c
	}
	return &corev1.Container{}
}
