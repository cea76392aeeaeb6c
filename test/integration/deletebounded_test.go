// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// TestDeleteIsBounded: when the pool's DaemonSet cannot be removed from the shoot, Delete gives up after
// --delete-wait-timeout (20s in the test stack) with a lastError that says which ManagedResource is stuck,
// keeps the ContainerRuntime (finalizer) and finishes once the shoot lets go.
func TestDeleteIsBounded(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "deletebounded", "1.32.8")
	sh.createRuntime("a", "")
	sh.waitOperation("a", "Create", "Succeeded")
	sh.waitPoolHealthy("a")

	// Something in the shoot holds on to the DaemonSet (a finalizer nobody removes).
	ctx := context.Background()
	ds := sh.daemonSet("a")
	patch := client.MergeFrom(ds.DeepCopy())
	ds.Finalizers = append(ds.Finalizers, "example.com/hold")
	must(t, sh.c.Patch(ctx, ds, patch))
	release := func() {
		ds := installationDS("a")
		if sh.exists(ds) && len(ds.Finalizers) > 0 {
			patch := client.MergeFrom(ds.DeepCopy())
			ds.Finalizers = nil
			must(t, sh.c.Patch(ctx, ds, patch))
		}
	}
	t.Cleanup(release) // runs before the shoot's cleanup, also when the test fails early

	cr := sh.runtime("a")
	must(t, sh.c.Delete(ctx, cr))
	// The library retries with backoff, so lastOperation alternates between Processing and Error; the
	// lastError stays until a Delete succeeds.
	const want = "extension-runtime-gvisor-installation-a still exists after 20s"
	sh.eventually("lastError naming the stuck ManagedResource and the bound", func() error {
		cr = sh.runtime("a")
		if le := cr.Status.LastError; le == nil || !strings.Contains(le.Description, want) {
			return fmt.Errorf("lastError %+v", le)
		}
		return nil
	})
	t.Logf("lastError: %s", cr.Status.LastError.Description)
	if cr.DeletionTimestamp == nil || len(cr.Finalizers) == 0 {
		t.Errorf("the ContainerRuntime must stay (deleting, with finalizer) until its ManagedResource is gone")
	}

	// The shoot lets go: the retried Delete finishes.
	release()
	sh.waitGone(&extensionsv1alpha1.ContainerRuntime{ObjectMeta: cr.ObjectMeta})
	sh.waitNoShootObjects()
}
