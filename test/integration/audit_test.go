// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// auditMark returns the number of write events recorded so far, to look only at what happens after it.
func (sh *testShoot) auditMark() int {
	sh.t.Helper()
	events, err := sh.stack.AuditEvents()
	must(sh.t, err)
	return len(events)
}

// controllerWritesSince returns the writes our controller sent after mark that this shoot can have caused: in its
// namespace, or cluster-scoped. Left out are the writes for the shoots of tests running in parallel (their own
// namespaces) and the controller's Leases in its own namespace (the heartbeat renews every few seconds, whatever
// a reconcile does).
func (sh *testShoot) controllerWritesSince(mark int) []envtest.AuditEvent {
	sh.t.Helper()
	events, err := sh.stack.AuditEvents()
	must(sh.t, err)
	var out []envtest.AuditEvent
	for _, e := range events[mark:] {
		if e.User.Username != envtest.ControllerUser || (e.ObjectRef.Namespace != "" && e.ObjectRef.Namespace != sh.ns) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// assertNoOpReconcile triggers a reconcile of an unchanged pool the way gardenlet does (operation annotation)
// and asserts, from the API server's audit log, that our controller wrote nothing but the ContainerRuntime's own
// bookkeeping (annotation removal, lastOperation): no Secret, no ManagedResource.
func (sh *testShoot) assertNoOpReconcile(t *testing.T, pool string) {
	t.Helper()
	mark := sh.auditMark()
	sh.updateRuntime(pool, "reconcile", nil)
	sh.waitOperation(pool, "Reconcile", "Succeeded")
	// Succeeded is written last; everything the actuator did is in the log by now (blocking audit mode).
	var bookkeeping int
	for _, e := range sh.controllerWritesSince(mark) {
		if e.ObjectRef.Resource == "containerruntimes" {
			bookkeeping++
			continue
		}
		t.Errorf("no-op reconcile of pool %s wrote %s", pool, e)
	}
	t.Logf("no-op reconcile of pool %s: 0 writes to ManagedResources/Secrets, %d to the ContainerRuntime itself (operation annotation, lastOperation)", pool, bookkeeping)
}
