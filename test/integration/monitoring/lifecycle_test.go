// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

const waitTimeout = 90 * time.Second

// seedClient is an admin client that knows the extension and the monitoring types.
func seedClient(t *testing.T, s *envtest.Stack) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	testutil.Must(t, extensionscontroller.AddToScheme(scheme))
	testutil.Must(t, monitoring.AddToScheme(scheme))
	c, err := client.New(s.Config, client.Options{Scheme: scheme})
	testutil.Must(t, err)
	return c
}

// TestShootMonitoringLifecycle: a shoot with two gvisor pools gets the three monitoring objects in its namespace,
// exactly as pkg/monitoring builds them (so the API server accepted them under the CRDs' schemas with strict field
// validation: the controller writes them that way); a reconcile of an unchanged pool writes none of them (the
// API server's audit log); removing one pool keeps them, removing the last removes them.
func TestShootMonitoringLifecycle(t *testing.T) {
	s := stack(t)
	c := seedClient(t, s)
	ctx := context.Background()
	shoot := gardenerfixtures.Shoot("mon", "life", "1.33.4")
	ns := gardenerfixtures.Namespace(shoot)
	testutil.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	testutil.Must(t, c.Create(ctx, gardenerfixtures.Cluster(shoot)))
	createShootAccessSecret(t, c, s, ns)
	for _, pool := range []string{"pool-a", "pool-b"} {
		testutil.Must(t, c.Create(ctx, gardenerfixtures.ContainerRuntime(ns, pool, nil, v1beta1constants.GardenerOperationReconcile)))
	}
	for _, pool := range []string{"pool-a", "pool-b"} {
		waitSucceeded(t, c, ns, pool, time.Time{})
	}
	want, err := monitoring.ShootObjects(ns, delivery.DaemonSet)
	testutil.Must(t, err)
	for _, w := range want {
		assertStored(t, c, w)
	}
	for _, o := range monitoring.OtherModesObjects(ns, delivery.DaemonSet) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), o.DeepCopyObject().(client.Object)); !apierrors.IsNotFound(err) {
			t.Errorf("%s %s of the OperatingSystemConfig mode deployed in the DaemonSet mode (err %v)", kind(o), o.GetName(), err)
		}
	}

	mark := auditMark(t, s)
	cr := &extensionsv1alpha1.ContainerRuntime{}
	testutil.Must(t, c.Get(ctx, gardenerfixtures.ContainerRuntimeKey(ns, "pool-a"), cr))
	before := cr.Status.LastOperation.LastUpdateTime.Time
	time.Sleep(time.Second) // lastUpdateTime has a resolution of a second
	patch := client.MergeFrom(cr.DeepCopy())
	metav1.SetMetaDataAnnotation(&cr.ObjectMeta, v1beta1constants.GardenerOperation, v1beta1constants.GardenerOperationReconcile)
	testutil.Must(t, c.Patch(ctx, cr, patch))
	waitSucceeded(t, c, ns, "pool-a", before)
	for _, e := range controllerWritesSince(t, s, mark, ns) {
		t.Logf("write by the controller during the no-op reconcile: %s", e)
		if e.ObjectRef.Resource != "containerruntimes" {
			t.Errorf("the reconcile of an unchanged pool wrote %s", e)
		}
	}

	deleteRuntime(t, c, ns, "pool-a")
	for _, w := range want {
		assertStored(t, c, w) // pool-b still has gVisor
	}
	deleteRuntime(t, c, ns, "pool-b")
	for _, w := range want {
		obj := w.DeepCopyObject().(client.Object)
		if err := c.Get(ctx, client.ObjectKeyFromObject(w), obj); !apierrors.IsNotFound(err) {
			t.Errorf("%s %s still there after the shoot's last gvisor pool went (err %v)", kind(w), w.GetName(), err)
		}
	}
}

// assertStored checks that the stored object of want's name carries want's labels and content.
func assertStored(t *testing.T, c client.Client, want client.Object) {
	t.Helper()
	have := want.DeepCopyObject().(client.Object)
	testutil.Must(t, c.Get(context.Background(), client.ObjectKeyFromObject(want), have))
	h, err := runtime.DefaultUnstructuredConverter.ToUnstructured(have)
	testutil.Must(t, err)
	w, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want)
	testutil.Must(t, err)
	for _, f := range []string{"spec", "data"} {
		if !equality.Semantic.DeepEqual(h[f], w[f]) {
			t.Errorf("%s %s: stored %s differs from pkg/monitoring's:\nstored: %v\nwant:   %v", kind(want), want.GetName(), f, h[f], w[f])
		}
	}
	for k, v := range want.GetLabels() {
		if have.GetLabels()[k] != v {
			t.Errorf("%s %s: label %s=%q, want %q", kind(want), want.GetName(), k, have.GetLabels()[k], v)
		}
	}
}

func kind(o client.Object) string { return o.GetObjectKind().GroupVersionKind().Kind }

// waitSucceeded waits until pool's ContainerRuntime has a succeeded Create or Reconcile recorded after after.
func waitSucceeded(t *testing.T, c client.Client, ns, pool string, after time.Time) {
	t.Helper()
	testutil.EventuallyWithin(t, waitTimeout, "ContainerRuntime "+pool+" reconciled", func() error {
		cr := &extensionsv1alpha1.ContainerRuntime{}
		if err := c.Get(context.Background(), gardenerfixtures.ContainerRuntimeKey(ns, pool), cr); err != nil {
			return err
		}
		op := cr.Status.LastOperation
		switch {
		case op == nil:
			return fmt.Errorf("no lastOperation")
		case !op.LastUpdateTime.After(after):
			return fmt.Errorf("lastOperation %s of %s, not after %s yet", op.Type, op.LastUpdateTime, after)
		case op.State != "Succeeded" || (op.Type != "Create" && op.Type != "Reconcile"):
			return fmt.Errorf("lastOperation %s %s: %s (lastError %v)", op.Type, op.State, op.Description, cr.Status.LastError)
		case cr.Annotations[v1beta1constants.GardenerOperation] != "" || cr.Status.ObservedGeneration != cr.Generation:
			return fmt.Errorf("not yet observed")
		}
		return nil
	})
}

func deleteRuntime(t *testing.T, c client.Client, ns, pool string) {
	t.Helper()
	key := gardenerfixtures.ContainerRuntimeKey(ns, pool)
	testutil.Must(t, client.IgnoreNotFound(c.Delete(context.Background(), &extensionsv1alpha1.ContainerRuntime{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})))
	testutil.EventuallyWithin(t, waitTimeout, "ContainerRuntime "+pool+" gone", func() error {
		err := c.Get(context.Background(), key, &extensionsv1alpha1.ContainerRuntime{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("still there")
	})
}

func auditMark(t *testing.T, s *envtest.Stack) int {
	t.Helper()
	events, err := s.AuditEvents()
	testutil.Must(t, err)
	return len(events)
}

// controllerWritesSince are our controller's writes after mark in namespace ns.
func controllerWritesSince(t *testing.T, s *envtest.Stack, mark int, ns string) []envtest.AuditEvent {
	t.Helper()
	events, err := s.AuditEvents()
	testutil.Must(t, err)
	var out []envtest.AuditEvent
	for _, e := range events[mark:] {
		if e.User.Username == envtest.ControllerUser && e.ObjectRef.Namespace == ns && !strings.HasPrefix(e.Verb, "get") {
			out = append(out, e)
		}
	}
	return out
}

// createShootAccessSecret creates the secret "gardener" gardenlet keeps in every shoot namespace ("the shoot" is
// the same API server): the Delete of a pool confirms its uninstall in the shoot through it.
func createShootAccessSecret(t *testing.T, c client.Client, s *envtest.Stack, ns string) {
	t.Helper()
	kubeconfig, err := os.ReadFile(s.KubeconfigPath)
	testutil.Must(t, err)
	testutil.Must(t, c.Create(context.Background(), gardenerfixtures.ShootAccessSecret(ns, kubeconfig)))
}
