// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

// Type is the ContainerRuntime type this controller is responsible for.
const Type = "gvisor"

// ManagedResourceName is the shoot-wide ManagedResource with the RuntimeClass chart.
const ManagedResourceName = "extension-runtime-gvisor"

// installationManagedResourcePrefix prefixes the per-pool ManagedResource with the installation chart.
const installationManagedResourcePrefix = "extension-runtime-gvisor-installation-"

// Origin is the value of the origin label on our ManagedResources: Gardener acts on origin=gardener ones, and
// the label tells operators which component created a ManagedResource.
const Origin = "runtime-gvisor"

// FieldOrigin is the origin label of the ManagedResources the field's extension
// (github.com/gardener/gardener-extension-runtime-gvisor) created under the same names. A shoot moved from it to
// this controller has them until its first reconcile here rewrites them with Origin.
const FieldOrigin = "extension-runtime-gvisor"

// InstallationManagedResourceName is the ManagedResource carrying the installation chart of worker pool pool.
func InstallationManagedResourceName(pool string) string {
	return installationManagedResourcePrefix + pool
}
