// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package controllermetrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"
)

// OperationsMetric counts the actuator's operations.
const OperationsMetric = "gvisor_containerruntime_operations_total"

// Results of an operation: done, requeued (a Delete waiting for the nodes' uninstall or for gardener-resource-manager,
// a reconcile waiting for the readiness gate's order: not a failure), or failed (what lastError shows).
const (
	ResultSuccess = "success"
	ResultRequeue = "requeue"
	ResultError   = "error"
)

// NewOperations returns the counter of the actuator's operations (reconcile, delete, force-delete, migrate,
// restore) by result. controller-runtime's controller_runtime_reconcile_total counts the reconciler's passes, in
// which the library's wrapper hides which operation ran and whether a requeue was a wait or a failure.
func NewOperations() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: OperationsMetric,
		Help: "Operations of the gvisor ContainerRuntime actuator by operation (reconcile, delete, force-delete, migrate, restore) and " +
			"result (success; requeue: waiting, e.g. a Delete for the nodes' uninstall; error: what lastError shows).",
	}, []string{"operation", "result"})
}

// Result classifies an operation's error.
func Result(err error) string {
	var requeue *reconcilerutils.RequeueAfterError
	switch {
	case err == nil:
		return ResultSuccess
	case errors.As(err, &requeue):
		return ResultRequeue
	default:
		return ResultError
	}
}
