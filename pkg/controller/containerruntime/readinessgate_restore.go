// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"
	"github.com/gardener/gardener/pkg/utils/kubernetes/health"
)

// A control plane migration that switches the readiness gate off: the old seed ran it on, the new one runs it off
// (--readiness-gate=false). Migrate releases the ManagedResources with keepObjects, so the gate's admission policy
// and the pool's RBAC stay in the shoot; the new seed's ManagedResources, rendered with the gate off, never list
// them, and gardener-resource-manager deletes only what a ManagedResource listed. Left alone they would stay in
// the shoot for good, owned by nothing, the pool's "patch nodes" grant among them.
//
// So Migrate records in status.state (which gardenlet carries to the new seed in the ShootState) that the gate's
// objects are in the shoot, and Restore on a seed with the gate off first adopts them: it deploys the ManagedResources
// with the gate-off content plus the gate's objects (the gate-off DaemonSet, so the pods roll once, as for any
// switch of the gate), policy first (readinessgate_order.go), and waits until gardener-resource-manager lists them. Only then
// does it clear the record and reconcile with the gate off, whose ordering removes the RBAC before the policy.
// While a pool's record is set, no pool's reconcile drops the policy (poolsWithGateBinding counts it).

// migrationState is the ContainerRuntime's status.state: what the old seed leaves to the new one.
type migrationState struct {
	// ReadinessGate: the gate's objects (admission policy, this pool's RBAC) were in the shoot when Migrate
	// released the ManagedResources.
	ReadinessGate bool `json:"readinessGate,omitempty"`
}

// readMigrationState decodes cr's status.state; none is the zero state.
func readMigrationState(cr *extensionsv1alpha1.ContainerRuntime) (migrationState, error) {
	var st migrationState
	if cr.Status.State == nil || len(cr.Status.State.Raw) == 0 {
		return st, nil
	}
	if err := json.Unmarshal(cr.Status.State.Raw, &st); err != nil {
		return st, fmt.Errorf("decoding status.state of ContainerRuntime %s/%s (want {\"readinessGate\": bool}): %w", cr.Namespace, cr.Name, err)
	}
	return st, nil
}

// writeMigrationState patches cr's status.state to st (none for the zero state).
func (a *Actuator) writeMigrationState(ctx context.Context, cr *extensionsv1alpha1.ContainerRuntime, st migrationState) error {
	patch := client.MergeFrom(cr.DeepCopy())
	cr.Status.State = nil
	if st != (migrationState{}) {
		raw, err := json.Marshal(st)
		if err != nil {
			return fmt.Errorf("encoding status.state: %w", err)
		}
		cr.Status.State = &runtime.RawExtension{Raw: raw}
	}
	if err := a.client.Status().Patch(ctx, cr, patch); err != nil {
		return fmt.Errorf("writing status.state of ContainerRuntime %s/%s: %w", cr.Namespace, cr.Name, err)
	}
	return nil
}

// recordGateForRestore (Migrate, before the ManagedResources are released) sets status.state's readinessGate when
// the gate's objects are in the shoot: the shoot-wide ManagedResource lists the policy or the pool's lists its
// binding. A retried Migrate, whose ManagedResources may be gone already, never clears it.
func (a *Actuator) recordGateForRestore(ctx context.Context, cr *extensionsv1alpha1.ContainerRuntime) error {
	st, err := readMigrationState(cr)
	if err != nil || st.ReadinessGate {
		return err
	}
	hasPolicy, err := a.shootWideHasPolicy(ctx, cr.Namespace)
	if err != nil {
		return err
	}
	hasBinding, err := a.poolHasGateBinding(ctx, cr)
	if err != nil || (!hasPolicy && !hasBinding) {
		return err
	}
	st.ReadinessGate = true
	return a.writeMigrationState(ctx, cr, st)
}

// poolHasGateBinding reports whether cr's pool's ManagedResource lists a readiness-gate ClusterRoleBinding.
func (a *Actuator) poolHasGateBinding(ctx context.Context, cr *extensionsv1alpha1.ContainerRuntime) (bool, error) {
	mr := &resourcesv1alpha1.ManagedResource{}
	name := InstallationManagedResourceName(cr.Spec.WorkerPool.Name)
	if err := a.apiReader.Get(ctx, client.ObjectKey{Namespace: cr.Namespace, Name: name}, mr); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	return listsGateBinding(mr), nil
}

// adoptGateOnRestore (Restore, before the usual reconcile) adopts the gate's objects the old seed left in the shoot
// when this seed renders the gate off, then clears the record; see the top of this file. With the gate on here,
// the usual reconcile adopts them itself, and the record is just cleared.
func (a *Actuator) adoptGateOnRestore(ctx context.Context, log logr.Logger, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) error {
	st, err := readMigrationState(cr)
	if err != nil || !st.ReadinessGate {
		return err
	}
	shoot, pool, err := a.desired(log, cr, cluster, false)
	if err != nil {
		return err
	}
	gated := a.settings.Render
	gated.ReadinessGate = true
	withGate, err := a.renderer.Shoot(gated, shootInput(cluster, cr))
	if err != nil {
		return err
	}
	if !shoot.ReadinessGate && withGate.ReadinessGate && pool.Installation != nil && withGate.Pools[0].Installation != nil {
		log.Info("Restore: adopting the readiness gate's objects the old seed left in the shoot, to remove them in order")
		if err := a.deployForShoot(ctx, cr.Namespace, ManagedResourceName, union(withGate.RuntimeClass.Files(), shoot.RuntimeClass.Files())); err != nil {
			return err
		}
		if err := a.waitShootWideApplied(ctx, cr.Namespace); err != nil {
			return err
		}
		name := InstallationManagedResourceName(pool.Pool)
		if err := a.deployForShoot(ctx, cr.Namespace, name, union(withGate.Pools[0].Installation.Files(), pool.Installation.Files())); err != nil {
			return err
		}
		if err := a.waitApplied(ctx, cr.Namespace, name); err != nil {
			return err
		}
	}
	return a.writeMigrationState(ctx, cr, migrationState{})
}

// listsGateBinding reports whether gardener-resource-manager lists a pool's readiness-gate ClusterRoleBinding among
// the objects it applied for mr.
func listsGateBinding(mr *resourcesv1alpha1.ManagedResource) bool {
	return slices.ContainsFunc(mr.Status.Resources, func(ref resourcesv1alpha1.ObjectReference) bool {
		return ref.Kind == "ClusterRoleBinding" && strings.HasPrefix(ref.Name, gateBindingPrefix)
	})
}

// union is the files of both, those of preferred where both have one (the same object).
func union(extra, preferred map[string][]byte) map[string][]byte {
	out := maps.Clone(extra)
	maps.Copy(out, preferred)
	return out
}

// waitApplied returns nil once gardener-resource-manager applied the current content of ManagedResource
// namespace/name (so its status lists what it owns in the shoot), else a RequeueAfterError saying so.
func (a *Actuator) waitApplied(ctx context.Context, namespace, name string) error {
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := a.apiReader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, mr); err != nil {
		return fmt.Errorf("reading ManagedResource %s/%s: %w", namespace, name, err)
	}
	if err := health.CheckManagedResourceApplied(mr); err != nil {
		return &reconcilerutils.RequeueAfterError{RequeueAfter: gatePoll, Cause: fmt.Errorf(
			"restore: adopting the readiness gate's objects of the old seed, ManagedResource %s/%s is not applied yet: %w", namespace, name, err)}
	}
	return nil
}

// poolsAdoptingGate lists the ContainerRuntimes in namespace whose status.state says the old seed's gate objects
// are still to be adopted: until they are, the policy must stay (their RBAC may be in the shoot, owned by nothing).
func (a *Actuator) poolsAdoptingGate(ctx context.Context, namespace string) ([]string, error) {
	list := &extensionsv1alpha1.ContainerRuntimeList{}
	if err := a.apiReader.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing ContainerRuntimes in %s: %w", namespace, err)
	}
	var out []string
	for i := range list.Items {
		if list.Items[i].Spec.Type != Type {
			continue
		}
		if st, err := readMigrationState(&list.Items[i]); err != nil || st.ReadinessGate {
			out = append(out, "ContainerRuntime "+list.Items[i].Name+" (restoring the old seed's readiness gate objects)")
		}
	}
	return out, nil
}
