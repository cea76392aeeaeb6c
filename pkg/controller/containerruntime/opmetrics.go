// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controllermetrics"
)

// countingActuator counts every operation of the actuator it wraps by result
// (controllermetrics.OperationsMetric).
type countingActuator struct {
	deferringActuator

	ops *prometheus.CounterVec
}

// countOperations wraps actuator so that its operations are counted on controller-runtime's registry.
func countOperations(actuator deferringActuator) (deferringActuator, error) {
	ops := controllermetrics.NewOperations()
	if err := controllermetrics.Register(metrics.Registry, ops); err != nil {
		return nil, err
	}
	return &countingActuator{deferringActuator: actuator, ops: ops}, nil
}

func (c *countingActuator) count(op string, err error) error {
	c.ops.WithLabelValues(op, controllermetrics.Result(err)).Inc()
	return err
}

func (c *countingActuator) Reconcile(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	return c.count("reconcile", c.deferringActuator.Reconcile(ctx, log, cr, cluster))
}

func (c *countingActuator) Delete(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	return c.count("delete", c.deferringActuator.Delete(ctx, log, cr, cluster))
}

func (c *countingActuator) deleteDeferringStatus(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	return c.count("delete", c.deferringActuator.deleteDeferringStatus(ctx, log, cr, cluster))
}

func (c *countingActuator) ForceDelete(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	return c.count("force-delete", c.deferringActuator.ForceDelete(ctx, log, cr, cluster))
}

func (c *countingActuator) Migrate(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	return c.count("migrate", c.deferringActuator.Migrate(ctx, log, cr, cluster))
}

func (c *countingActuator) Restore(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	return c.count("restore", c.deferringActuator.Restore(ctx, log, cr, cluster))
}
