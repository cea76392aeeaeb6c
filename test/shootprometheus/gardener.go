// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package shootprometheus

import (
	"context"
	"fmt"

	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	"github.com/gardener/gardener/pkg/utils/managedresources"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// inMemorySeed is a seed in memory that a Gardener component deploys into, so that a test takes its objects as
// Gardener's own code builds them instead of writing them by hand.
func inMemorySeed() client.Client {
	return fakeclient.NewClientBuilder().WithScheme(kubernetes.SeedScheme).Build()
}

// seedObjects are the objects of the seed ManagedResources (class seed) a component deployed into mem, decoded
// as gardenlet's gardener-resource-manager would apply them to the seed.
func seedObjects(ctx context.Context, mem client.Client, namespace string) ([]client.Object, error) {
	list := &resourcesv1alpha1.ManagedResourceList{}
	if err := mem.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	var out []client.Object
	for _, mr := range list.Items {
		if mr.Spec.Class == nil || *mr.Spec.Class != "seed" {
			continue
		}
		objs, err := managedresources.GetObjects(ctx, mem, namespace, mr.Name)
		if err != nil {
			return nil, fmt.Errorf("the objects of the seed ManagedResource %s: %w", mr.Name, err)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// copyShootManagedResources copies every shoot ManagedResource (no class) a component deployed into mem with its
// Secrets into the seed and waits until gardener-resource-manager applied them to the shoot.
func copyShootManagedResources(ctx context.Context, mem, c client.Client, namespace string) error {
	list := &resourcesv1alpha1.ManagedResourceList{}
	if err := mem.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return err
	}
	for _, mr := range list.Items {
		if mr.Spec.Class != nil {
			continue
		}
		if err := copyShootManagedResource(ctx, mem, c, namespace, mr.Name); err != nil {
			return err
		}
	}
	return nil
}

// copyShootManagedResource copies the component's shoot ManagedResource name with its Secrets from mem into the
// seed and waits until gardener-resource-manager applied it to the shoot.
func copyShootManagedResource(ctx context.Context, mem, c client.Client, namespace, name string) error {
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := mem.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, mr); err != nil {
		return fmt.Errorf("the component's ManagedResource %s: %w", name, err)
	}
	for _, ref := range mr.Spec.SecretRefs {
		s := &corev1.Secret{}
		if err := mem.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, s); err != nil {
			return err
		}
		if err := createCopy(ctx, c, s); err != nil {
			return fmt.Errorf("the ManagedResource %s's secret %s: %w", name, s.Name, err)
		}
	}
	if err := createCopy(ctx, c, mr); err != nil {
		return fmt.Errorf("the component's ManagedResource %s: %w", name, err)
	}
	return poll(ctx, "the ManagedResource "+name+" applied", func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(mr), mr); err != nil {
			return err
		}
		for _, cond := range mr.Status.Conditions {
			if cond.Type == resourcesv1alpha1.ResourcesApplied && cond.Status == "True" {
				return nil
			}
		}
		return fmt.Errorf("not applied yet: %+v", mr.Status.Conditions)
	})
}

// createCopy creates obj, taken from another client, in c; one that exists already is left as it is (a second
// Prometheus in the same shoot namespace shares the first one's access).
func createCopy(ctx context.Context, c client.Client, obj client.Object) error {
	obj = obj.DeepCopyObject().(client.Object)
	obj.SetResourceVersion("")
	if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// createUnstructured creates a typed object of Gardener's seed scheme in c as unstructured, so that c needs no
// scheme for its kind (prometheus-operator's ScrapeConfig).
func createUnstructured(ctx context.Context, c client.Client, obj client.Object) error {
	gvks, _, err := kubernetes.SeedScheme.ObjectKinds(obj)
	if err != nil {
		return err
	}
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: raw}
	u.SetGroupVersionKind(gvks[0])
	return createCopy(ctx, c, u)
}

// waitToken waits until gardener-resource-manager's token requestor wrote the token of the access Secret name.
func waitToken(ctx context.Context, c client.Client, namespace, name string) (string, error) {
	var token string
	err := poll(ctx, "the token requestor's token in "+name, func() error {
		s := &corev1.Secret{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, s); err != nil {
			return err
		}
		if token = string(s.Data[resourcesv1alpha1.DataKeyToken]); token == "" {
			return fmt.Errorf("no %s in the secret yet", resourcesv1alpha1.DataKeyToken)
		}
		return nil
	})
	return token, err
}
