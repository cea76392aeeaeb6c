// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	corev1 "k8s.io/api/core/v1"
)

// InstallerContainerName names the installation DaemonSet's installer container (charts/internal/gvisor-installation):
// the chart's init container, whose termination message (the installer's report line, or why it failed) stays in
// the pod's status; the health check reads it by this name.
const InstallerContainerName = "installer"

// InstallerContainer returns the pod spec's installer container: the init container of that name, else a main
// container of that name (the installation DaemonSet of a chart before the init-container split). Nil when there
// is none.
func InstallerContainer(spec *corev1.PodSpec) *corev1.Container {
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			if cs[i].Name == InstallerContainerName {
				return &cs[i]
			}
		}
	}
	return nil
}
