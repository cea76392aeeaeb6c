// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-logr/logr"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"
)

// Reconcile renders both charts and creates or updates the shoot-wide and the pool's ManagedResources, in the order
// the readiness gate needs (readinessgate_order.go): with the gate on, the shoot-wide one (the admission policy) first and the
// pool's (its RBAC) once the first is applied; otherwise the pool's first, and the shoot-wide one only once no pool's
// readiness-gate RBAC is left in the shoot.
func (a *Actuator) Reconcile(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	shoot, pool, err := a.desired(log, cr, cluster, false)
	if err != nil {
		return err
	}
	a.warnTestImageTag(log, cr, pool.Config)
	// The shoot Prometheus' and Plutono's objects (monitoring.go): seed objects, independent of the order below.
	if err := a.deployShootMonitoring(ctx, cr.Namespace); err != nil {
		return err
	}
	// A switch of the delivery mode hands the pool over only at a safe point (deliveryswitch.go).
	if err := a.deliverySwitch(ctx, log, cr, pool); err != nil {
		return err
	}
	deployPool := func() error {
		if pool.Installation == nil {
			return nil // the OperatingSystemConfig delivery mode: gardener-node-agent installs gVisor, no DaemonSet
		}
		return a.deployForShoot(ctx, cr.Namespace, InstallationManagedResourceName(pool.Pool), pool.Installation.Files())
	}
	deployShootWide := func() error {
		return a.deployForShoot(ctx, cr.Namespace, ManagedResourceName, shoot.RuntimeClass.Files())
	}
	if shoot.ReadinessGate {
		// The admission policy before the RBAC it guards (readinessgate_order.go). The RuntimeClass appearing before the
		// DaemonSet is harmless here: with the gate its node selector requires the label only installers set.
		if err := deployShootWide(); err != nil {
			return err
		}
		if err := a.waitShootWideApplied(ctx, cr.Namespace); err != nil {
			return err
		}
		return deployPool()
	}
	// The pool's installation first: the RuntimeClass lets pods ask for gVisor, so it should not appear before
	// the DaemonSet that installs it. The pool's readiness-gate RBAC (if it had any) goes with this update.
	if err := deployPool(); err != nil {
		return err
	}
	// The shoot-wide ManagedResource drops the admission policy only once no pool's RBAC is left (readinessgate_order.go).
	hasPolicy, err := a.shootWideHasPolicy(ctx, cr.Namespace)
	if err != nil {
		return err
	}
	if !hasPolicy {
		return deployShootWide()
	}
	pending, err := a.poolsWithGateBinding(ctx, cr.Namespace)
	if err != nil {
		return err
	}
	if len(pending) > 0 {
		log.Info("Keeping the readiness gate's admission policy until no pool's RBAC is left", "managedResources", pending)
		return &reconcilerutils.RequeueAfterError{RequeueAfter: gatePoll, Cause: fmt.Errorf(
			"readiness gate off: the admission policy is removed only after the RBAC it guards, still in %s", strings.Join(pending, ", "))}
	}
	return deployShootWide()
}

// Restore re-creates the ManagedResources on the new seed; gardener-resource-manager adopts the RuntimeClass and
// DaemonSets that Migrate left in the shoot. Everything is derived from the ContainerRuntime itself, except
// whether the old seed's readiness gate objects are in the shoot (status.state): with the gate off here, they are
// adopted first, to be removed in order (readinessgate_restore.go).
func (a *Actuator) Restore(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	if err := a.adoptGateOnRestore(ctx, log, cr, cluster); err != nil {
		return err
	}
	return a.Reconcile(ctx, log, cr, cluster)
}
