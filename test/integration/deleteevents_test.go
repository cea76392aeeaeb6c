// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// Bounds of TestDeleteIsEventDriven, with headroom: measured 4 passes and 4 status writes for a pool without
// nodes (9 passes before the ManagedResource predicate left out gardener-resource-manager's intermediate steps). The polling Delete this replaced took a pass every second for the 10-12 s gardener-resource-manager
// needs (plus one for each of its own status writes), each writing the status twice: about 25 and 30.
const (
	maxDeletePasses       = 15
	maxDeleteStatusWrites = 8
)

// TestDeleteIsEventDriven: deleting a pool whose installation gardener-resource-manager applied still rolls the
// uninstall out before the ManagedResource goes, and the Delete's waits (the uninstall rolling out, the
// ManagedResource going) are woken by the ManagedResource's events: a few passes, not a poll, and a status write
// only when what the ContainerRuntime reports changed.
func TestDeleteIsEventDriven(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "deleteevents", "1.34.1")
	sh.createRuntime("a", "")
	sh.waitOperation("a", "Create", "Succeeded")
	sh.waitPoolHealthy("a")
	sh.waitControllerIdle()

	mark, passes := sh.auditMark(), sh.reconciles()
	sh.deleteRuntime("a")
	passes = sh.reconciles() - passes

	mr := containerruntime.InstallationManagedResourceName("a")
	statusWrites, uninstallAt, deleteAt := 0, -1, -1
	for i, e := range sh.controllerWritesSince(mark) {
		switch {
		case e.ObjectRef.Resource == "containerruntimes" && e.ObjectRef.Subresource == "status":
			statusWrites++
		case e.ObjectRef.Resource == "managedresources" && e.ObjectRef.Name == mr && e.Verb != "delete" && uninstallAt < 0:
			uninstallAt = i
		case e.ObjectRef.Resource == "managedresources" && e.ObjectRef.Name == mr && e.Verb == "delete" && deleteAt < 0:
			deleteAt = i
		}
	}
	if uninstallAt < 0 || deleteAt < uninstallAt {
		t.Errorf("the uninstall must be written to ManagedResource %s before it is deleted (write #%d, delete #%d)", mr, uninstallAt, deleteAt)
	}
	t.Logf("Delete of pool a: %d reconciles, %d status writes", passes, statusWrites)
	if passes > maxDeletePasses {
		t.Errorf("Delete took %d reconciles, want at most %d: it polls instead of waking on the ManagedResource's events", passes, maxDeletePasses)
	}
	if statusWrites > maxDeleteStatusWrites {
		t.Errorf("Delete wrote the status %d times, want at most %d: a pass that finds nothing new must not write", statusWrites, maxDeleteStatusWrites)
	}
}

// reconciles is the containerruntime controller's reconcile count so far, whatever the result (its /metrics).
func (sh *testShoot) reconciles() int {
	sh.t.Helper()
	code, body, err := envtest.HTTPGet(context.Background(), sh.stack.MetricsURL+"/metrics")
	if err != nil || code != http.StatusOK {
		sh.t.Fatalf("GET /metrics: %d %v", code, err)
	}
	total := 0
	for _, line := range strings.Split(body, "\n") {
		name, rest, ok := strings.Cut(line, "{")
		if !ok || name != "controller_runtime_reconcile_total" || !strings.Contains(rest, `controller="containerruntime"`) {
			continue
		}
		_, v, _ := strings.Cut(rest, "} ")
		n, err := strconv.ParseFloat(v, 64)
		must(sh.t, err)
		total += int(n)
	}
	return total
}
