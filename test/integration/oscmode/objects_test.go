// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package oscmode

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	nodeagentconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/nodeagent/v1alpha1"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
	oscwebhook "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

const (
	pool        = osctest.GVisorPool
	waitTimeout = 90 * time.Second
)

// shoot is one shoot namespace of a test, with its Cluster, shoot access secret and pool's ContainerRuntime, all
// as gardenlet writes them (test/gardenerfixtures) for the shoot's spec.
type shoot struct {
	t *testing.T
	c client.Client
	// spec is the Shoot in the garden (with the pool's machine image version: a new one is a rolling update).
	spec    *gardencorev1beta1.Shoot
	ns      string
	cleaned bool
}

// createdShoot sets up the control plane, starts the controller in mode and creates the shoot name with its
// pool's ContainerRuntime, waiting until its creation succeeded: how every test here begins.
func createdShoot(t *testing.T, mode delivery.Mode, name string) (*controller, *shoot) {
	t.Helper()
	setup(t)
	c := startController(t, mode)
	sh := newShoot(t, name)
	sh.createRuntime()
	// Create, or the Reconcile that an OSC-triggered requeue can run right after it (seen in a fresh-clone run:
	// the second reconcile 10 ms after the first overwrote the type, and a wait for Create alone timed out).
	sh.waitOperation(gardencorev1beta1.LastOperationTypeCreate+"|"+gardencorev1beta1.LastOperationTypeReconcile, gardencorev1beta1.LastOperationStateSucceeded, "")
	return c, sh
}

func newShoot(t *testing.T, name string) *shoot {
	t.Helper()
	scheme := runtime.NewScheme()
	testutil.Must(t, extensionscontroller.AddToScheme(scheme))
	c, err := client.New(env.cp.Config, client.Options{Scheme: scheme})
	testutil.Must(t, err)
	spec := gardenerfixtures.Shoot("osc", name, osctest.KubernetesVersion,
		gardenerfixtures.Worker(pool, gardenerfixtures.GVisor(nil)), gardenerfixtures.Worker(osctest.OtherPool))
	sh := &shoot{t: t, c: c, spec: spec, ns: gardenerfixtures.Namespace(spec)}
	ctx := context.Background()
	testutil.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sh.ns}}))
	testutil.Must(t, c.Create(ctx, gardenerfixtures.Cluster(spec)))
	kubeconfig, err := os.ReadFile(env.cp.KubeconfigPath)
	testutil.Must(t, err)
	testutil.Must(t, c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: sh.ns, Name: v1beta1constants.SecretNameGardener},
		Data:       map[string][]byte{"kubeconfig": kubeconfig},
	}))
	t.Cleanup(sh.cleanup)
	return sh
}

// cleanup removes what a test left in the "shoot" (one API server: the next test must start from nothing). Tests
// call it at their end, while their last controller still runs (t.Cleanup would stop a controller started after
// newShoot first); as a t.Cleanup it is the fallback after a failure: without a controller it deletes the
// ManagedResources itself (gardener-resource-manager still removes their objects) and drops the finalizer.
func (sh *shoot) cleanup() {
	if sh.cleaned {
		return
	}
	sh.cleaned = true
	ctx := context.Background()
	// Nodes first: a DaemonSet-mode Delete then has no node to wait for an uninstall pod on.
	_ = sh.c.DeleteAllOf(ctx, &corev1.Node{}, client.MatchingLabels{v1beta1constants.LabelWorkerPool: pool})
	cr := sh.runtime()
	if err := sh.c.Get(ctx, client.ObjectKeyFromObject(cr), cr); err == nil {
		_ = sh.c.Delete(ctx, cr)
		if err := waitGone(sh, cr, 30*time.Second); err != nil {
			_ = sh.c.DeleteAllOf(ctx, &resourcesv1alpha1.ManagedResource{}, client.InNamespace(sh.ns))
			if sh.c.Get(ctx, client.ObjectKeyFromObject(cr), cr) == nil {
				patch := client.MergeFrom(cr.DeepCopy())
				cr.Finalizers = nil
				_ = sh.c.Patch(ctx, cr, patch)
			}
		}
	}
	_ = sh.c.DeleteAllOf(ctx, &corev1.Secret{}, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels{v1beta1constants.GardenRole: v1beta1constants.GardenRoleOperatingSystemConfig})
	_ = sh.c.DeleteAllOf(ctx, &extensionsv1alpha1.OperatingSystemConfig{}, client.InNamespace(sh.ns))
	sh.eventually("RuntimeClass gvisor gone at cleanup", func() error { return sh.gone(&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "gvisor"}}) })
}

func (sh *shoot) eventually(what string, check func() error) {
	sh.t.Helper()
	testutil.EventuallyWithin(sh.t, waitTimeout, what, check)
}

// waitGone polls until obj is gone or timeout passes.
func waitGone(sh *shoot, obj client.Object, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := sh.gone(obj)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func (sh *shoot) gone(obj client.Object) error {
	err := sh.c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("%T %s still there", obj, client.ObjectKeyFromObject(obj))
}

func (sh *shoot) exists(obj client.Object) error {
	return sh.c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
}

// runtime is the pool's ContainerRuntime where gardenlet writes it.
func (sh *shoot) runtime() *extensionsv1alpha1.ContainerRuntime {
	key := gardenerfixtures.ContainerRuntimeKey(sh.ns, pool)
	return &extensionsv1alpha1.ContainerRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
}

// createRuntime creates the shoot's ContainerRuntimes as gardenlet does (its Deploy: operation reconcile).
func (sh *shoot) createRuntime() {
	sh.t.Helper()
	for _, cr := range gardenerfixtures.ContainerRuntimes(sh.ns, v1beta1constants.GardenerOperationReconcile, sh.spec.Spec.Provider.Workers...) {
		testutil.Must(sh.t, sh.c.Create(context.Background(), cr))
	}
}

// roll is a rolling update of the pool: a new machine image version, so gardenlet computes a new key for the pool
// and writes a new OSC object and OSC secret (the old OSC object stays until the test deletes it). gardenlet syncs
// the Cluster first.
func (sh *shoot) roll() {
	sh.t.Helper()
	for i := range sh.spec.Spec.Provider.Workers {
		if w := &sh.spec.Spec.Provider.Workers[i]; w.Name == pool {
			w.Machine.Image.Version = ptr.To(*w.Machine.Image.Version + ".1")
		}
	}
	ctx := context.Background()
	cluster := &extensionsv1alpha1.Cluster{}
	testutil.Must(sh.t, sh.c.Get(ctx, client.ObjectKey{Name: sh.ns}, cluster))
	patch := client.MergeFrom(cluster.DeepCopy())
	cluster.Spec = gardenerfixtures.Cluster(sh.spec).Spec
	testutil.Must(sh.t, sh.c.Patch(ctx, cluster, patch))
}

// gardenlet is what gardenlet writes for the pool now: its reconcile OSC and its OSC secret's name.
func (sh *shoot) gardenlet() gardenerfixtures.PoolOSCs {
	return gardenerfixtures.OperatingSystemConfigs(sh.spec)[pool]
}

// annotate sets the gardener.cloud/operation annotation (gardenlet's next reconcile, migrate, restore).
func (sh *shoot) annotate(op string) {
	sh.t.Helper()
	cr := sh.runtime()
	testutil.Must(sh.t, sh.exists(cr))
	patch := client.MergeFrom(cr.DeepCopy())
	metav1.SetMetaDataAnnotation(&cr.ObjectMeta, v1beta1constants.GardenerOperation, op)
	testutil.Must(sh.t, sh.c.Patch(context.Background(), cr, patch))
}

// waitOperation waits for lastOperation type (or one of the "|"-separated types)/state; for Error it also wants
// lastError to contain want.
func (sh *shoot) waitOperation(opType gardencorev1beta1.LastOperationType, state gardencorev1beta1.LastOperationState, want string) *extensionsv1alpha1.ContainerRuntime {
	sh.t.Helper()
	cr := sh.runtime()
	sh.eventually(fmt.Sprintf("lastOperation %s %s %q", opType, state, want), func() error {
		if err := sh.exists(cr); err != nil {
			return err
		}
		op := cr.Status.LastOperation
		switch {
		case op == nil:
			return fmt.Errorf("no lastOperation yet")
		case !slices.Contains(strings.Split(string(opType), "|"), string(op.Type)) || op.State != state:
			return fmt.Errorf("lastOperation %s %s: %s (lastError %v)", op.Type, op.State, op.Description, cr.Status.LastError)
		case want != "" && (cr.Status.LastError == nil || !contains(cr.Status.LastError.Description, want)):
			return fmt.Errorf("lastError %v does not contain %q", cr.Status.LastError, want)
		}
		return nil
	})
	return cr
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func (sh *shoot) managedResource(name string) *resourcesv1alpha1.ManagedResource {
	return &resourcesv1alpha1.ManagedResource{ObjectMeta: metav1.ObjectMeta{Namespace: sh.ns, Name: name}}
}

func installationMR(sh *shoot) *resourcesv1alpha1.ManagedResource {
	return sh.managedResource(containerruntime.InstallationManagedResourceName(pool))
}

func installationDS() client.Object {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: "gvisor-installation-" + pool},
	}
}

// waitCondition waits for the health condition t with status on the ContainerRuntime and returns it.
func (sh *shoot) waitCondition(t gardencorev1beta1.ConditionType, status gardencorev1beta1.ConditionStatus, want ...string) gardencorev1beta1.Condition {
	sh.t.Helper()
	var got gardencorev1beta1.Condition
	sh.eventually(fmt.Sprintf("condition %s %s %q", t, status, want), func() error {
		cr := sh.runtime()
		if err := sh.exists(cr); err != nil {
			return err
		}
		c := v1beta1helper.GetCondition(cr.Status.Conditions, t)
		if c == nil {
			return fmt.Errorf("no condition %s", t)
		}
		if c.Status != status {
			return fmt.Errorf("%s is %s: %s", t, c.Status, c.Message)
		}
		for _, w := range want {
			if !contains(c.Message, w) {
				return fmt.Errorf("%s message %q does not contain %q", t, c.Message, w)
			}
		}
		got = *c
		return nil
	})
	return got
}

// ensurer is the webhook's code in mode, with the controller's renderer.
func ensurer(t *testing.T, mode delivery.Mode) *oscwebhook.Ensurer {
	t.Helper()
	r, err := render.Load(version.Version, "")
	testutil.Must(t, err)
	return oscwebhook.NewEnsurer(r, oscwebhook.Options{DeliveryMode: mode})
}

// writeOSC plays gardenlet writing the pool's reconcile OSC (osctest's content under gardenlet's name for the
// shoot's current spec), mutated by the webhook in mode (old: the stored one, as the API server hands it to the
// webhook), and returns what is stored.
func (sh *shoot) writeOSC(mode delivery.Mode) *extensionsv1alpha1.OperatingSystemConfig {
	sh.t.Helper()
	ctx := context.Background()
	osc := osctest.OSCOf(sh.spec, pool)
	old := &extensionsv1alpha1.OperatingSystemConfig{}
	err := sh.c.Get(ctx, client.ObjectKeyFromObject(osc), old)
	if apierrors.IsNotFound(err) {
		old = nil
	} else {
		testutil.Must(sh.t, err)
	}
	// As the webhook's Mutator: the pool's ContainerRuntime record, read from the API server.
	removal, err := oscwebhook.ReadRemovalStatus(ctx, sh.c, old)
	testutil.Must(sh.t, err)
	testutil.Must(sh.t, ensurer(sh.t, mode).MutateOSCWithRemoval(ctx, gardenerfixtures.DecodedCluster(sh.spec), osc, old, removal))
	if old == nil {
		testutil.Must(sh.t, sh.c.Create(ctx, osc))
	} else {
		osc.ResourceVersion = old.ResourceVersion
		testutil.Must(sh.t, sh.c.Update(ctx, osc))
	}
	return osc
}

// syncSecret plays gardenlet syncing osc into the pool's OSC secret in the shoot's kube-system (Gardener's
// OperatingSystemConfigSecret: the data node-agent downloads, its checksum annotation), and gardener-resource-manager
// deleting the pool's secret of an older key, and returns the checksum.
func (sh *shoot) syncSecret(osc *extensionsv1alpha1.OperatingSystemConfig) string {
	sh.t.Helper()
	ctx := context.Background()
	want := gardenerfixtures.OSCSecret(sh.c, osc, sh.gardenlet().SecretName, pool)
	secrets := &corev1.SecretList{}
	testutil.Must(sh.t, sh.c.List(ctx, secrets, client.InNamespace(metav1.NamespaceSystem), client.MatchingLabels(want.Labels)))
	for i := range secrets.Items {
		if secrets.Items[i].Name != want.Name {
			testutil.Must(sh.t, sh.c.Delete(ctx, &secrets.Items[i]))
		}
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: want.Namespace, Name: want.Name}}
	err := sh.c.Get(ctx, client.ObjectKeyFromObject(secret), secret)
	if client.IgnoreNotFound(err) != nil {
		sh.t.Fatal(err)
	}
	secret.Labels, secret.Annotations, secret.Data = want.Labels, want.Annotations, want.Data
	if apierrors.IsNotFound(err) {
		testutil.Must(sh.t, sh.c.Create(ctx, secret))
	} else {
		testutil.Must(sh.t, sh.c.Update(ctx, secret))
	}
	return want.Annotations[nodeagentconfigv1alpha1.AnnotationKeyChecksumDownloadedOperatingSystemConfig]
}

// createNode creates a Node of the pool as its kubelet registers it, with the labels gardenlet gives the pool's
// machines of the current key.
func (sh *shoot) createNode(name string) {
	sh.t.Helper()
	testutil.Must(sh.t, sh.c.Create(context.Background(), sh.node(name)))
}

// node is a Node of the pool with gardenlet's labels for the pool's current key.
func (sh *shoot) node(name string) *corev1.Node {
	return gardenerfixtures.Node(sh.spec, pool, name)
}

// applied plays node-agent finishing a reconcile of the OSC with checksum on node.
func (sh *shoot) applied(node, checksum string) {
	sh.t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}
	testutil.Must(sh.t, sh.exists(n))
	patch := client.MergeFrom(n.DeepCopy())
	metav1.SetMetaDataAnnotation(&n.ObjectMeta, nodeagentconfigv1alpha1.AnnotationKeyChecksumAppliedOperatingSystemConfig, checksum)
	testutil.Must(sh.t, sh.c.Patch(context.Background(), n, patch))
}

// unitsReady plays node-agent's systemd-unit check writing the SystemdUnitsReady condition on node.
func (sh *shoot) unitsReady(node string, status corev1.ConditionStatus, message string) {
	sh.t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}
	testutil.Must(sh.t, sh.exists(n))
	now := metav1.Now()
	n.Status.Conditions = []corev1.NodeCondition{{
		Type: nodeagentconfigv1alpha1.ConditionTypeSystemdUnitsReady, Status: status, Reason: "UnhealthyUnits", Message: message,
		LastHeartbeatTime: now, LastTransitionTime: now,
	}}
	testutil.Must(sh.t, sh.c.Status().Update(context.Background(), n))
}
