// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
)

// TestReconcileAcrossShootVersions creates and deletes a gvisor pool for every shoot version of our own table:
// the API server must accept the rendered RuntimeClass and DaemonSet, and deletion must remove them.
func TestReconcileAcrossShootVersions(t *testing.T) {
	t.Parallel()
	for _, version := range shootVersions {
		t.Run(version, func(t *testing.T) {
			sh := newShoot(t, "v"+strings.NewReplacer(".", "-").Replace(version), version)
			sh.createRuntime("worker", "")
			sh.waitOperation("worker", "Create", "Succeeded")

			ds := sh.daemonSet("worker")
			rc := sh.runtimeClass()
			if rc.Handler != "runsc" {
				t.Errorf("RuntimeClass handler %q, want runsc", rc.Handler)
			}
			for _, c := range append(ds.Spec.Template.Spec.InitContainers, ds.Spec.Template.Spec.Containers...) {
				if strings.Contains(c.Image, "-dev") {
					t.Errorf("container %s image %q is a development tag no registry has", c.Name, c.Image)
				}
			}
			for _, name := range []string{containerruntime.ManagedResourceName, containerruntime.InstallationManagedResourceName("worker")} {
				if mr := sh.managedResource(name); !sh.exists(mr) || mr.Labels["origin"] != containerruntime.Origin {
					t.Errorf("ManagedResource %s: labels %v, want origin=%s", name, mr.Labels, containerruntime.Origin)
				}
			}

			sh.deleteRuntime("worker")
			sh.waitNoShootObjects()
		})
	}
}
