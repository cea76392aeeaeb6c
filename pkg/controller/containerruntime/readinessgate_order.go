// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"
	"github.com/gardener/gardener/pkg/utils/kubernetes/health"
)

// The readiness gate's objects are split over two ManagedResources: the shoot-wide one carries the
// ValidatingAdmissionPolicy (+ binding) and the ClusterRole, each pool's carries its ServiceAccount and the
// ClusterRoleBinding that grants it "patch nodes". The binding must never exist without the policy that confines
// it to the readiness label on the installer's own node: a pool's binding without the policy is "patch any node,
// any field" for a token on every node of the pool. gardener-resource-manager applies two ManagedResources in no
// order, so the controller orders them:
//
//   - gate on: the shoot-wide ManagedResource (policy) is deployed first, and the pool's (binding) only once
//     gardener-resource-manager reports the shoot-wide one applied for its current content (requeueing until then);
//   - gate off: the pool's ManagedResource (without the binding) first, and the shoot-wide one drops the policy only
//     once no pool's ManagedResource in the namespace still carries a binding (every one applied for its current
//     content and listing no readiness-gate ClusterRoleBinding); until then the shoot-wide one is left as it is;
//   - delete: the pool's ManagedResource is gone before the shoot-wide one is deleted (delete.go).
//
// The API server loads a new policy into its admission plugin asynchronously (about a second); the pool's
// installers only patch their node after containerd restarted and a sandbox started, which takes longer.

// gateBindingPrefix is the name prefix of the pools' readiness-gate ClusterRoleBindings (installation chart).
const gateBindingPrefix = "gvisor-installation:node-ready-label:"

// gatePoll is the requeue interval while one ManagedResource waits for the other.
const gatePoll = 2 * time.Second

// waitShootWideApplied returns nil once gardener-resource-manager applied the shoot-wide ManagedResource's current
// content (so the policy exists in the shoot), else a RequeueAfterError saying so.
func (a *Actuator) waitShootWideApplied(ctx context.Context, namespace string) error {
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := a.apiReader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ManagedResourceName}, mr); err != nil {
		return fmt.Errorf("reading ManagedResource %s/%s: %w", namespace, ManagedResourceName, err)
	}
	if err := health.CheckManagedResourceApplied(mr); err != nil {
		return &reconcilerutils.RequeueAfterError{RequeueAfter: gatePoll, Cause: fmt.Errorf(
			"readiness gate: the pool's RBAC is deployed only after the admission policy that confines it, and ManagedResource %s/%s is not applied yet: %w",
			namespace, ManagedResourceName, err)}
	}
	return nil
}

// shootWideHasPolicy reports whether the shoot-wide ManagedResource has the readiness gate's admission policy in the
// shoot: gardener-resource-manager lists it among the objects it applied (status.resources). Content not applied yet
// does not count: a policy that never reached the shoot guards no binding, since a gate-on reconcile deploys the
// pools' bindings only after the policy is applied. Without the ManagedResource (a first reconcile) there is none.
func (a *Actuator) shootWideHasPolicy(ctx context.Context, namespace string) (bool, error) {
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := a.apiReader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ManagedResourceName}, mr); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading ManagedResource %s/%s: %w", namespace, ManagedResourceName, err)
	}
	for _, ref := range mr.Status.Resources {
		if ref.Kind == "ValidatingAdmissionPolicy" {
			return true, nil
		}
	}
	return false, nil
}

// poolsWithGateBinding lists the pools' installation ManagedResources in namespace that may still carry a
// readiness-gate ClusterRoleBinding in the shoot: not applied for their current content, or listing one; and the
// pools still to adopt an old seed's (readinessgate_restore.go).
func (a *Actuator) poolsWithGateBinding(ctx context.Context, namespace string) ([]string, error) {
	list := &resourcesv1alpha1.ManagedResourceList{}
	if err := a.apiReader.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing ManagedResources in %s: %w", namespace, err)
	}
	var out []string
	for _, mr := range list.Items {
		if !strings.HasPrefix(mr.Name, installationManagedResourcePrefix) {
			continue
		}
		if health.CheckManagedResourceApplied(&mr) != nil {
			out = append(out, mr.Name+" (not applied yet)")
			continue
		}
		for _, ref := range mr.Status.Resources {
			if ref.Kind == "ClusterRoleBinding" && strings.HasPrefix(ref.Name, gateBindingPrefix) {
				out = append(out, mr.Name+" (binding "+ref.Name+")")
				break
			}
		}
	}
	// And the pools restoring an old seed's gate objects, which no ManagedResource lists yet (readinessgate_restore.go).
	adopting, err := a.poolsAdoptingGate(ctx, namespace)
	return append(out, adopting...), err
}
