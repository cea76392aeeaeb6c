// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"reflect"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	gardenerextensions "github.com/gardener/gardener/pkg/extensions"
	"github.com/gardener/gardener/pkg/utils/managedresources"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/seedbench"
)

var managedFields = []metav1.ManagedFieldsEntry{{Manager: "gardenlet", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}}

// TestTransformClusterKeepsWhatIsRead: after the transform the Cluster decodes (as the library's GetCluster does)
// to the same Shoot, the same Seed and the same metadata; only the CloudProfile shrinks to its name and type.
func TestTransformClusterKeepsWhatIsRead(t *testing.T) {
	in := seedbench.Cluster("shoot--bench--s01", "s01", []string{"s01-a", "s01-b", "s01-c"})
	in.Labels = map[string]string{"l": "v"}
	in.Annotations = map[string]string{v1beta1constants.AnnotationKeyGenericTokenKubeconfigSecretName: "generic-token-kubeconfig-abc"}
	in.Finalizers = []string{"f"}
	in.ManagedFields = managedFields
	before := decode(t, in.DeepCopy())
	rawSize := len(in.Spec.CloudProfile.Raw)

	out, err := transformCluster(in.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*extensionsv1alpha1.Cluster)
	after := decode(t, got)

	if !reflect.DeepEqual(after.Shoot, before.Shoot) {
		t.Error("the Shoot changed")
	}
	if !reflect.DeepEqual(after.Seed, before.Seed) {
		t.Error("the Seed changed")
	}
	wantMeta := in.ObjectMeta
	wantMeta.ManagedFields = nil
	if !reflect.DeepEqual(got.ObjectMeta, wantMeta) {
		t.Errorf("metadata: got %+v, want %+v (managedFields dropped only)", got.ObjectMeta, wantMeta)
	}
	if after.CloudProfile == nil || after.CloudProfile.Name != before.CloudProfile.Name || after.CloudProfile.Spec.Type != before.CloudProfile.Spec.Type ||
		after.CloudProfile.Kind != "CloudProfile" {
		t.Errorf("CloudProfile head: got %+v, want name %q type %q", after.CloudProfile, before.CloudProfile.Name, before.CloudProfile.Spec.Type)
	}
	if n := len(got.Spec.CloudProfile.Raw); n > 200 {
		t.Errorf("CloudProfile is %d bytes after the transform (%d before), want its head only", n, rawSize)
	}
	// The extension library's helpers the controller and the health checks call give the same answers.
	if extensionscontroller.IsHibernationEnabled(after) != extensionscontroller.IsHibernationEnabled(before) ||
		gardenerextensions.GenericTokenKubeconfigSecretNameFromCluster(after) != gardenerextensions.GenericTokenKubeconfigSecretNameFromCluster(before) {
		t.Error("library helpers answer differently after the transform")
	}

	// Informers re-apply the transform to objects they already hold (resync, relist): idempotent.
	again, err := transformCluster(got.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, got) {
		t.Error("transform is not idempotent")
	}
}

// TestTransformClusterLeavesBadCloudProfile: a CloudProfile that does not parse stays, so that the library reports
// the decode error exactly as without the transform.
func TestTransformClusterLeavesBadCloudProfile(t *testing.T) {
	c := &extensionsv1alpha1.Cluster{Spec: extensionsv1alpha1.ClusterSpec{CloudProfile: runtime.RawExtension{Raw: []byte(`{"kind":`)}}}
	out, err := transformCluster(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out.(*extensionsv1alpha1.Cluster).Spec.CloudProfile.Raw); got != `{"kind":` {
		t.Errorf("bad CloudProfile rewritten to %q", got)
	}
	empty := &extensionsv1alpha1.Cluster{}
	if out, _ := transformCluster(empty); out.(*extensionsv1alpha1.Cluster).Spec.CloudProfile.Raw != nil {
		t.Error("a Cluster without CloudProfile got one")
	}
	tombstone := toolscache.DeletedFinalStateUnknown{Key: "x"}
	if out, _ := transformCluster(tombstone); !reflect.DeepEqual(out, tombstone) {
		t.Error("a tombstone changed")
	}
}

// TestDefaultTransformKeepsWhatIsRead: for the other cached kinds (ContainerRuntime, ManagedResource, Lease) only
// managedFields go: spec, status (the ManagedResource's resources list, which the readiness-gate ordering reads,
// included), annotations, finalizers and the deletion timestamp stay.
func TestDefaultTransformKeepsWhatIsRead(t *testing.T) {
	opts := manager.Options{}
	opts.Cache.ByObject = map[client.Object]cache.ByObject{
		&coordinationv1.Lease{}: {Namespaces: map[string]cache.Config{"extension": {}}},
	}
	configureCache(&opts)
	if len(opts.Cache.ByObject) != 3 {
		t.Fatalf("ByObject has %d entries, want the Lease's, the Cluster's and the ManagedResource's", len(opts.Cache.ByObject))
	}
	for obj, by := range opts.Cache.ByObject {
		switch obj.(type) {
		case *coordinationv1.Lease:
			if _, ok := by.Namespaces["extension"]; !ok || by.Transform != nil {
				t.Errorf("the Lease's cache options changed: %+v", by)
			}
		case *extensionsv1alpha1.Cluster:
			if by.Transform == nil {
				t.Error("no Cluster transform")
			}
		case *resourcesv1alpha1.ManagedResource:
			if by.Label == nil || by.Transform != nil {
				t.Errorf("the ManagedResource's cache options: %+v, want a label selector and the default transform", by)
			}
		}
	}

	// gardenlet's ContainerRuntime of pool a as the cache sees it while it is deleted: with the extension's
	// finalizer, managedFields and a status; the installation ManagedResource of the pool alike.
	now := metav1.Now()
	cr := gardenerfixtures.ContainerRuntime("shoot--p--s", "a", nil, v1beta1constants.GardenerOperationReconcile)
	cr.ManagedFields, cr.DeletionTimestamp, cr.Finalizers, cr.Generation = managedFields, &now, []string{"extensions.gardener.cloud/gvisor"}, 3
	cr.Status.ObservedGeneration = 3
	mr := &resourcesv1alpha1.ManagedResource{
		ObjectMeta: metav1.ObjectMeta{Name: containerruntime.InstallationManagedResourceName("a"), Namespace: cr.Namespace,
			ManagedFields: managedFields, DeletionTimestamp: &now, Finalizers: []string{"resources.gardener.cloud/gardener-resource-manager"}, Generation: 3},
		Spec:   resourcesv1alpha1.ManagedResourceSpec{SecretRefs: []corev1.LocalObjectReference{{Name: "s"}}},
		Status: resourcesv1alpha1.ManagedResourceStatus{ObservedGeneration: 3, Resources: []resourcesv1alpha1.ObjectReference{{}}},
	}
	for _, obj := range []client.Object{cr, mr} {
		want := obj.DeepCopyObject().(client.Object)
		want.SetManagedFields(nil)
		got, err := opts.Cache.DefaultTransform(obj.DeepCopyObject())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%T: got %+v, want %+v", obj, got, want)
		}
	}
}

// TestManagedResourceSelector: the ManagedResource cache keeps ours and the field's extension's (taken over under
// the same names), and none of the other components of a shoot namespace: gardenlet's (origin gardener), other
// extensions' (their own origins) and one without an origin.
func TestManagedResourceSelector(t *testing.T) {
	sel := managedResourceSelector()
	for _, tc := range []struct {
		labels map[string]string
		want   bool
	}{
		{map[string]string{managedresources.LabelKeyOrigin: containerruntime.Origin}, true},
		{map[string]string{managedresources.LabelKeyOrigin: containerruntime.FieldOrigin}, true},
		{map[string]string{managedresources.LabelKeyOrigin: containerruntime.Origin, "other": "x"}, true},
		{map[string]string{managedresources.LabelKeyOrigin: managedresources.LabelValueGardener}, false},
		{map[string]string{managedresources.LabelKeyOrigin: "provider-aws"}, false},
		{map[string]string{"other": "x"}, false},
		{nil, false},
	} {
		if got := sel.Matches(labels.Set(tc.labels)); got != tc.want {
			t.Errorf("labels %v: selected %v, want %v", tc.labels, got, tc.want)
		}
	}
}

func decode(t *testing.T, c *extensionsv1alpha1.Cluster) *extensionscontroller.Cluster {
	t.Helper()
	cp, err := gardenerextensions.CloudProfileFromCluster(c)
	if err != nil {
		t.Fatalf("decoding the CloudProfile: %v", err)
	}
	seed, err := gardenerextensions.SeedFromCluster(c)
	if err != nil {
		t.Fatalf("decoding the Seed: %v", err)
	}
	shoot, err := gardenerextensions.ShootFromCluster(c)
	if err != nil {
		t.Fatalf("decoding the Shoot: %v", err)
	}
	return &extensionscontroller.Cluster{ObjectMeta: c.ObjectMeta, CloudProfile: cp, Seed: seed, Shoot: shoot}
}
