// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// The shoot Kubernetes versions these tests create Clusters for. Our own table: the controller must not care
// which versions some Gardener release supports (a test tied to that list broke in the field).
var shootVersions = []string{"1.30.14", "1.31.12", "1.32.8", "1.33.4", "1.34.1", "1.35.0"}

const waitTimeout = 90 * time.Second

// testShoot is a shoot namespace on the "seed" with its Cluster resource.
type testShoot struct {
	t     *testing.T
	stack *envtest.Stack
	c     client.Client
	// shoot is the Shoot in the garden, ns its namespace in the seed.
	shoot *gardencorev1beta1.Shoot
	ns    string
}

func newShoot(t *testing.T, name, version string) *testShoot {
	t.Helper()
	s := stack(t)
	shoot := gardenerfixtures.Shoot("it", name, version)
	sh := &testShoot{t: t, stack: s, c: s.Client, shoot: shoot, ns: gardenerfixtures.Namespace(shoot)}
	ctx := context.Background()
	must(t, sh.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sh.ns}}))
	must(t, sh.c.Create(ctx, gardenerfixtures.Cluster(shoot)))
	// As gardenlet keeps it in every shoot namespace: the health checks and the Delete's confirmation of the
	// uninstall read the shoot through it. Created before sh.cleanup is registered, so that its own clean-up runs
	// after sh.cleanup's Deletes, which need it.
	sh.createShootAccessSecret()
	t.Cleanup(sh.cleanup)
	return sh
}

// runtimeName is the name gardenlet gives the gvisor ContainerRuntime of pool.
func (sh *testShoot) runtimeName(pool string) string {
	return gardenerfixtures.ContainerRuntimeKey(sh.ns, pool).Name
}

// createRuntime creates the ContainerRuntime of pool with providerConfig (YAML/JSON, empty for none),
// annotated like gardenlet does.
func (sh *testShoot) createRuntime(pool, providerConfig string) {
	sh.t.Helper()
	sh.createRuntimeWithOperation(pool, providerConfig, v1beta1constants.GardenerOperationReconcile)
}

// createRuntimeWithOperation is createRuntime with the operation annotation op (reconcile, restore), as gardenlet's
// Deploy and Restore write it.
func (sh *testShoot) createRuntimeWithOperation(pool, providerConfig, op string) {
	sh.t.Helper()
	var pc []byte
	if providerConfig != "" {
		pc = yamlToJSON(sh.t, providerConfig)
	}
	cr := gardenerfixtures.ContainerRuntime(sh.ns, pool, pc, op)
	must(sh.t, sh.c.Create(context.Background(), cr))
}

// updateRuntime changes the ContainerRuntime and annotates it with operation op, as gardenlet does.
func (sh *testShoot) updateRuntime(pool, op string, mutate func(*extensionsv1alpha1.ContainerRuntime)) {
	sh.t.Helper()
	cr := sh.runtime(pool)
	patch := client.MergeFrom(cr.DeepCopy())
	if mutate != nil {
		mutate(cr)
	}
	metav1.SetMetaDataAnnotation(&cr.ObjectMeta, v1beta1constants.GardenerOperation, op)
	must(sh.t, sh.c.Patch(context.Background(), cr, patch))
}

func (sh *testShoot) runtime(pool string) *extensionsv1alpha1.ContainerRuntime {
	sh.t.Helper()
	cr := &extensionsv1alpha1.ContainerRuntime{}
	must(sh.t, sh.c.Get(context.Background(), client.ObjectKey{Namespace: sh.ns, Name: sh.runtimeName(pool)}, cr))
	return cr
}

// waitOperation waits until the ContainerRuntime's lastOperation is opType (or one of "A|B") in state, with the operation
// annotation gone (the library removes it when it picks the object up) and the generation observed.
func (sh *testShoot) waitOperation(pool, opType, state string) *extensionsv1alpha1.ContainerRuntime {
	sh.t.Helper()
	if opType == "Create" {
		// Gardener's library records the first operation as Create and every later one as Reconcile: an extra
		// reconcile (a requeue, a watch event) right after the first turns a finished Create into Reconcile.
		opType = "Create|Reconcile"
	}
	var cr *extensionsv1alpha1.ContainerRuntime
	sh.eventually(fmt.Sprintf("ContainerRuntime %s: lastOperation %s %s", sh.runtimeName(pool), opType, state), func() error {
		cr = &extensionsv1alpha1.ContainerRuntime{}
		if err := sh.c.Get(context.Background(), client.ObjectKey{Namespace: sh.ns, Name: sh.runtimeName(pool)}, cr); err != nil {
			return err
		}
		op := cr.Status.LastOperation
		switch {
		case op == nil:
			return fmt.Errorf("no lastOperation yet")
		case !slices.Contains(strings.Split(opType, "|"), string(op.Type)) || string(op.State) != state:
			return fmt.Errorf("lastOperation %s %s: %s (lastError %v)", op.Type, op.State, op.Description, cr.Status.LastError)
		case cr.Annotations[v1beta1constants.GardenerOperation] != "":
			return fmt.Errorf("operation annotation %q still present", cr.Annotations[v1beta1constants.GardenerOperation])
		case cr.Status.ObservedGeneration != cr.Generation:
			return fmt.Errorf("observedGeneration %d, generation %d", cr.Status.ObservedGeneration, cr.Generation)
		}
		return nil
	})
	return cr
}

// deleteRuntime deletes the ContainerRuntime and waits until it is gone (the controller removed its finalizer).
func (sh *testShoot) deleteRuntime(pool string) {
	sh.t.Helper()
	cr := &extensionsv1alpha1.ContainerRuntime{ObjectMeta: metav1.ObjectMeta{Name: sh.runtimeName(pool), Namespace: sh.ns}}
	must(sh.t, client.IgnoreNotFound(sh.c.Delete(context.Background(), cr)))
	sh.waitGone(cr)
}

// waitGone waits until obj no longer exists.
func (sh *testShoot) waitGone(obj client.Object) {
	sh.t.Helper()
	sh.eventually(fmt.Sprintf("%T %s gone", obj, client.ObjectKeyFromObject(obj)), func() error {
		err := sh.c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("still exists (deletionTimestamp %v, finalizers %v)", obj.GetDeletionTimestamp(), obj.GetFinalizers())
	})
}

// cleanup deletes every ContainerRuntime of the shoot and waits until nothing of ours is left in the "shoot",
// so that the next test starts from an empty cluster.
func (sh *testShoot) cleanup() {
	ctx := context.Background()
	list := &extensionsv1alpha1.ContainerRuntimeList{}
	if err := sh.c.List(ctx, list, client.InNamespace(sh.ns)); err != nil {
		sh.t.Errorf("cleanup: listing ContainerRuntimes: %v", err)
		return
	}
	for i := range list.Items {
		if err := client.IgnoreNotFound(sh.c.Delete(ctx, &list.Items[i])); err != nil {
			sh.t.Errorf("cleanup: %v", err)
		}
	}
	for i := range list.Items {
		sh.waitGone(&list.Items[i])
	}
	sh.deleteOrphans()
	sh.waitNoShootObjects()
}

// deleteOrphans removes installation DaemonSets and the RuntimeClass that no ManagedResource manages any more
// (a test that failed between Migrate and Restore leaves them), so that the next test starts clean.
func (sh *testShoot) deleteOrphans() {
	ctx := context.Background()
	mrs := &resourcesv1alpha1.ManagedResourceList{}
	if err := sh.c.List(ctx, mrs, client.InNamespace(sh.ns)); err != nil || len(mrs.Items) > 0 {
		return // gardener-resource-manager still owns them (or we cannot tell): leave them to it
	}
	dss := &appsv1.DaemonSetList{}
	if err := sh.c.List(ctx, dss, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels{"app.kubernetes.io/name": "gvisor-installation"}); err == nil {
		for i := range dss.Items {
			_ = client.IgnoreNotFound(sh.c.Delete(ctx, &dss.Items[i]))
		}
	}
	_ = client.IgnoreNotFound(sh.c.Delete(ctx, gvisorRuntimeClass()))
}

// waitNoShootObjects waits until no ManagedResource in the shoot namespace, no RuntimeClass and no installation
// DaemonSet remain.
func (sh *testShoot) waitNoShootObjects() {
	sh.t.Helper()
	sh.eventually("no ManagedResources, RuntimeClass or installation DaemonSets left", func() error {
		ctx := context.Background()
		mrs := &resourcesv1alpha1.ManagedResourceList{}
		if err := sh.c.List(ctx, mrs, client.InNamespace(sh.ns)); err != nil {
			return err
		}
		dss := &appsv1.DaemonSetList{}
		if err := sh.c.List(ctx, dss, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels{"app.kubernetes.io/name": "gvisor-installation"}); err != nil {
			return err
		}
		err := sh.c.Get(ctx, client.ObjectKey{Name: "gvisor"}, &nodev1.RuntimeClass{})
		if len(mrs.Items) > 0 || len(dss.Items) > 0 || !apierrors.IsNotFound(err) {
			return fmt.Errorf("%d ManagedResources, %d DaemonSets, RuntimeClass lookup: %v", len(mrs.Items), len(dss.Items), err)
		}
		return nil
	})
}

// eventually polls check every 250ms until it returns nil, failing the test after waitTimeout.
func (sh *testShoot) eventually(what string, check func() error) {
	sh.t.Helper()
	eventually(sh.t, what, check)
}

func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	testutil.EventuallyWithin(t, waitTimeout, what, check)
}

func must(t *testing.T, err error) {
	t.Helper()
	testutil.Must(t, err)
}
