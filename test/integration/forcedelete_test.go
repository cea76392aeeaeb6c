// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// TestForceDelete: when the shoot is force-deleted (confirmation.gardener.cloud/force-deletion on the Shoot in
// the Cluster), deleting the ContainerRuntime must not wait for the shoot: the ManagedResources are released
// (keepObjects, the shoot's objects vanish with the cluster) and deleted, and the ContainerRuntime is gone at once.
func TestForceDelete(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "forcedelete", "1.35.0")
	sh.createRuntime("a", "")
	sh.waitOperation("a", "Create", "Succeeded")
	sh.waitPoolHealthy("a")

	ctx := context.Background()
	cluster := &extensionsv1alpha1.Cluster{}
	must(t, sh.c.Get(ctx, client.ObjectKey{Name: sh.ns}, cluster))
	var shoot map[string]any
	must(t, json.Unmarshal(cluster.Spec.Shoot.Raw, &shoot))
	shoot["metadata"].(map[string]any)["annotations"] = map[string]any{v1beta1constants.AnnotationConfirmationForceDeletion: "true"}
	raw, err := json.Marshal(shoot)
	must(t, err)
	patch := client.MergeFrom(cluster.DeepCopy())
	cluster.Spec.Shoot.Raw = raw
	must(t, sh.c.Patch(ctx, cluster, patch))

	start := time.Now()
	sh.deleteRuntime("a")
	t.Logf("ContainerRuntime gone %s after deletion", time.Since(start).Round(10*time.Millisecond))
	for _, name := range []string{containerruntime.ManagedResourceName, containerruntime.InstallationManagedResourceName("a")} {
		sh.waitGone(sh.managedResource(name))
	}
	if !sh.exists(installationDS("a")) || !sh.exists(gvisorRuntimeClass()) {
		t.Errorf("force deletion deleted objects in the shoot; it must only release them (keepObjects)")
	}
	if ds := installationDS("a"); sh.exists(ds) && ds.Labels[render.ModeLabel] != "" {
		t.Errorf("force deletion rolled out the uninstall (DaemonSet labels %v); the shoot's nodes go with it", ds.Labels)
	}
}
