// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestControlPlane checks what the package promises beyond plain envtest: a foreground deletion finishes (garbage
// collector), a namespace can be deleted (namespace controller), a DaemonSet gets a status (DaemonSet controller).
func TestControlPlane(t *testing.T) {
	ctx := context.Background()
	cp, err := Start(ctx, Options{AssetsDir: realcomponents.KubebuilderAssets(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	})
	c, err := client.New(cp.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "harness"}}
	testutil.Must(t, c.Create(ctx, ns))
	labels := map[string]string{"app": "x"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns.Name},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "x"}}},
			},
		},
	}
	testutil.Must(t, c.Create(ctx, ds))
	testutil.EventuallyWithin(t, time.Minute, "DaemonSet status written", func() error {
		testutil.Must(t, c.Get(ctx, client.ObjectKeyFromObject(ds), ds))
		if ds.Status.ObservedGeneration != ds.Generation {
			return fmt.Errorf("observedGeneration %d of %d", ds.Status.ObservedGeneration, ds.Generation)
		}
		return nil
	})

	testutil.Must(t, c.Delete(ctx, ds, client.PropagationPolicy(metav1.DeletePropagationForeground)))
	testutil.EventuallyWithin(t, time.Minute, "foreground deletion finished", func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(ds), ds); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (finalizers %v): %v", ds.Finalizers, err)
		}
		return nil
	})

	testutil.Must(t, c.Delete(ctx, ns))
	testutil.EventuallyWithin(t, time.Minute, "namespace deleted", func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(ns), ns); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (phase %s): %v", ns.Status.Phase, err)
		}
		return nil
	})
}
