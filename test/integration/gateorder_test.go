// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// TestReadinessGateOrder: the readiness gate's admission policy is in the shoot before the
// pool's RBAC it guards, and leaves it only after that RBAC: when the gate is switched on, off, and when the pool is
// deleted. The order is read from the real kube-apiserver's audit log of what the real gardener-resource-manager
// wrote (the ManagedResources themselves are applied in no order).
func TestReadinessGateOrder(t *testing.T) {
	t.Parallel()
	sh := newShoot(t, "gateorder", "1.31.12")
	on := sh.actuator(containerruntime.Settings{UninstallTimeout: time.Minute, Render: render.Settings{ReadinessGate: true}})
	off := sh.actuator(containerruntime.Settings{UninstallTimeout: time.Minute})
	cr := gardenerfixtures.ContainerRuntime(sh.ns, "a", nil, "")
	cluster := sh.clusterWithVersion("1.31.12")
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "gvisor-node-ready-label"}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "gvisor-installation:node-ready-label:a"}}
	const (
		vap  = "validatingadmissionpolicies/gvisor-node-ready-label"
		vapb = "validatingadmissionpolicybindings/gvisor-node-ready-label"
		crb  = "clusterrolebindings/gvisor-installation:node-ready-label:a"
	)

	// Switched on: policy and its binding first, then the pool's RBAC.
	mark := sh.auditMark()
	reconcileWithRequeues(t, on, cr, cluster)
	sh.waitPoolHealthy("a")
	sh.assertWrittenBefore(mark, "create", []string{vap, vapb}, crb)

	// Switched off: the pool's RBAC goes first, then the policy.
	mark = sh.auditMark()
	reconcileWithRequeues(t, off, cr, cluster)
	sh.waitPoolHealthy("a")
	sh.waitGone(policy)
	if sh.exists(binding) {
		t.Errorf("ClusterRoleBinding %s still in the shoot with the gate off", binding.Name)
	}
	sh.assertWrittenBefore(mark, "delete", []string{crb}, vap)

	// On again, then the pool is deleted: the RBAC is gone before the policy.
	reconcileWithRequeues(t, on, cr, cluster)
	sh.waitPoolHealthy("a")
	mark = sh.auditMark()
	deleteWithRequeues(t, on, cr, cluster)
	sh.waitNoShootObjects()
	sh.assertWrittenBefore(mark, "delete", []string{crb}, vap)
}

// reconcileWithRequeues calls Reconcile as the library does: again after a RequeueAfterError, until it succeeds.
func reconcileWithRequeues(t *testing.T, a *containerruntime.Actuator, cr *extensionsv1alpha1.ContainerRuntime, cluster *extensionscontroller.Cluster) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		err := a.Reconcile(context.Background(), logr.Discard(), cr, cluster)
		if err == nil {
			return
		}
		var requeue *reconcilerutils.RequeueAfterError
		if !errors.As(err, &requeue) || time.Now().After(deadline) {
			t.Fatalf("Reconcile: %v", err)
		}
		t.Logf("requeue: %v", requeue.Cause)
		time.Sleep(requeue.RequeueAfter)
	}
}

// assertWrittenBefore asserts that, in the audit log after mark, each of first was written with verb (successfully)
// before last was.
func (sh *testShoot) assertWrittenBefore(mark int, verb string, first []string, last string) {
	sh.t.Helper()
	events, err := sh.stack.AuditEvents()
	must(sh.t, err)
	at := map[string]int{}
	for i, e := range events[mark:] {
		key := e.ObjectRef.Resource + "/" + e.ObjectRef.Name
		if _, seen := at[key]; !seen && e.Verb == verb && e.ObjectRef.Namespace == "" && e.ResponseStatus.Code < 300 {
			at[key] = i
		}
	}
	l, ok := at[last]
	if !ok {
		sh.t.Errorf("no successful %s of %s in the audit log", verb, last)
		return
	}
	for _, f := range first {
		if i, ok := at[f]; !ok || i > l {
			sh.t.Errorf("%s of %s (event %s) is not before that of %s (event %d)", verb, f, position(i, ok), last, l)
		}
	}
}

func position(i int, ok bool) string {
	if !ok {
		return "missing"
	}
	return fmt.Sprint(i)
}
