// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// installerContainer is the installation DaemonSet's container named installer: the chart's init container (its
// termination message, the installer's report, stays in the pod's status), else a main container of that name
// (an older chart). A DaemonSet without one is a test failure: the zero container has no command.
func installerContainer(ds *appsv1.DaemonSet) *corev1.Container {
	spec := &ds.Spec.Template.Spec
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			if cs[i].Name == "installer" {
				return &cs[i]
			}
		}
	}
	return &corev1.Container{}
}
