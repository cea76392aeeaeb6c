// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	extensionscontainerruntimecontroller "github.com/gardener/gardener/extensions/pkg/controller/containerruntime"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"
)

// deleteActuator is an Actuator whose Delete (either entry) returns what the test sets.
type deleteActuator struct {
	extensionscontainerruntimecontroller.Actuator

	err error
}

func (a *deleteActuator) Delete(context.Context, logr.Logger, *extensionsv1alpha1.ContainerRuntime, *extensionscontroller.Cluster) error {
	return a.err
}

func (a *deleteActuator) deleteDeferringStatus(context.Context, logr.Logger, *extensionsv1alpha1.ContainerRuntime, *extensionscontroller.Cluster) error {
	return a.err
}

// TestDeleteWaitWritesOnlyChanges: the first pass of a Delete records what it waits for (one write); passes
// that wait for the same thing write nothing; a new reason is one write; the end is the library's (Succeeded,
// finalizer removed). The requeue is the Actuator's.
func TestDeleteWaitWritesOnlyChanges(t *testing.T) {
	cr := runtimeOf("a", true)
	cr.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStateSucceeded}
	writes := 0
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(cr).WithStatusSubresource(cr).
		WithInterceptorFuncs(interceptor.Funcs{
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				writes++
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
		}).Build()
	act := &deleteActuator{}
	r := &reconciler{client: c, actuator: act, status: extensionscontroller.NewStatusUpdater(c)}
	pass := func(err error) time.Duration {
		t.Helper()
		act.err = err
		cur := &extensionsv1alpha1.ContainerRuntime{}
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(cr), cur); err != nil {
			t.Fatal(err)
		}
		writes = 0
		res, err := r.delete(context.Background(), logr.Discard(), cur, nil)
		if err != nil {
			t.Fatalf("delete: %v", err)
		}
		return res.RequeueAfter
	}
	wait := func(cause string) error {
		return &reconcilerutils.RequeueAfterError{Cause: errors.New(cause), RequeueAfter: safetyRequeue}
	}

	if got := pass(wait("waiting for ManagedResource x")); writes != 1 || got != safetyRequeue {
		t.Errorf("first pass: %d status writes, requeue %s; want 1 (the wait) and %s", writes, got, safetyRequeue)
	}
	for range 3 {
		if pass(wait("waiting for ManagedResource x")); writes != 0 {
			t.Errorf("a pass waiting for the same thing: %d status writes, want 0", writes)
		}
	}
	if pass(wait("waiting for ManagedResource y")); writes != 1 {
		t.Errorf("a new reason: %d status writes, want 1", writes)
	}
	got := &extensionsv1alpha1.ContainerRuntime{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(cr), got); err != nil {
		t.Fatal(err)
	}
	if le := got.Status.LastError; le == nil || !strings.Contains(le.Description, "Error deleting ContainerRuntime: waiting for ManagedResource y") {
		t.Errorf("lastError %+v, want the library's wording with the new reason", le)
	}
	if op := got.Status.LastOperation; op == nil || op.Type != gardencorev1beta1.LastOperationTypeDelete || op.State != gardencorev1beta1.LastOperationStateError {
		t.Errorf("lastOperation %+v, want Delete Error as the library writes a wait", op)
	}

	pass(nil)
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(cr), got); !apierrors.IsNotFound(err) {
		t.Errorf("after the last pass the finalizer must be gone (and with it the object): %v, finalizers %v", err, got.Finalizers)
	}
}

// clientManager is the part of a manager the library's NewReconciler uses: its clients.
type clientManager struct {
	manager.Manager

	client client.Client
}

func (m clientManager) GetClient() client.Client    { return m.client }
func (m clientManager) GetAPIReader() client.Reader { return m.client }
func (m clientManager) GetScheme() *runtime.Scheme  { return m.client.Scheme() }

// TestDeleteMatchesTheLibrary fences this package's Delete path (reconciler.delete) against the extension library's
// (containerruntime.NewReconciler), whose semantics it keeps: for a Delete that waits, fails and succeeds, both
// leave the same lastOperation, lastError, result and finalizers. It fails when the library's Delete changes
// (its words, its error codes, its requeue), so that ours is changed with it.
func TestDeleteMatchesTheLibrary(t *testing.T) {
	wait := &reconcilerutils.RequeueAfterError{Cause: errors.New("waiting for ManagedResource x"), RequeueAfter: safetyRequeue}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"waits", wait},
		{"fails", errors.New("listing ManagedResources: the server is unavailable")},
		{"succeeds", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(build func(client.Client, *deleteActuator) reconcile.Reconciler) (reconcile.Result, *extensionsv1alpha1.ContainerRuntime, error) {
				cr := runtimeOf("a", true)
				cluster := gardenerfixtures.Cluster(shootOf("1.33.4"))
				cluster.Name = cr.Namespace
				c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(cr, cluster).WithStatusSubresource(cr).Build()
				res, err := build(c, &deleteActuator{err: tc.err}).Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(cr)})
				got := &extensionsv1alpha1.ContainerRuntime{}
				if gerr := c.Get(context.Background(), client.ObjectKeyFromObject(cr), got); gerr != nil {
					if !apierrors.IsNotFound(gerr) {
						t.Fatal(gerr)
					}
					got = nil // the finalizer went, and with it the object
				}
				return res, got, err
			}
			libRes, lib, libErr := run(func(c client.Client, a *deleteActuator) reconcile.Reconciler {
				return extensionscontainerruntimecontroller.NewReconciler(clientManager{client: c}, a)
			})
			ourRes, ours, ourErr := run(func(c client.Client, a *deleteActuator) reconcile.Reconciler {
				return &reconciler{client: c, actuator: a, status: extensionscontroller.NewStatusUpdater(c)}
			})
			if libRes != ourRes || (libErr == nil) != (ourErr == nil) {
				t.Errorf("result: library %+v, %v; ours %+v, %v", libRes, libErr, ourRes, ourErr)
			}
			if (lib == nil) != (ours == nil) {
				t.Fatalf("object after the pass: library %v, ours %v", lib, ours)
			}
			if lib == nil {
				return
			}
			ignore := cmpopts.IgnoreFields(gardencorev1beta1.LastOperation{}, "LastUpdateTime")
			ignoreErr := cmpopts.IgnoreFields(gardencorev1beta1.LastError{}, "LastUpdateTime")
			if diff := cmp.Diff(lib.Status.LastOperation, ours.Status.LastOperation, ignore); diff != "" {
				t.Errorf("lastOperation (-library +ours):\n%s", diff)
			}
			if diff := cmp.Diff(lib.Status.LastError, ours.Status.LastError, ignoreErr); diff != "" {
				t.Errorf("lastError (-library +ours):\n%s", diff)
			}
			if diff := cmp.Diff(lib.Finalizers, ours.Finalizers); diff != "" {
				t.Errorf("finalizers (-library +ours):\n%s", diff)
			}
		})
	}
}
