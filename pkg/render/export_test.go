// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

// ForContainerRuntime and ForUninstall expose, for the tests of the mapping alone, what Shoot reads from one
// ContainerRuntime to install or to uninstall its pool.
func ForContainerRuntime(cr *extensionsv1alpha1.ContainerRuntime) (InstallationValues, error) {
	v, _, err := readContainerRuntime(cr, false)
	return v, err
}

func ForUninstall(cr *extensionsv1alpha1.ContainerRuntime) (InstallationValues, error) {
	v, _, err := readContainerRuntime(cr, true)
	return v, err
}
