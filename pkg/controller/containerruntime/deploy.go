// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	"github.com/gardener/gardener/pkg/utils/managedresources"
)

// deployForShoot creates or updates the ManagedResource namespace/name (and its content-addressed Secret) with
// files. Gardener's helper reads and then updates the ManagedResource with its resourceVersion, so it loses to
// anyone who writes it in between: gardener-resource-manager updating its status, or another pool's reconcile
// (pools run in parallel and all deploy the same shoot-wide ManagedResource). The loser retries and then finds
// the object as it wants it, instead of reporting a lastError (or, in the uninstall swap, failing the Delete).
func (a *Actuator) deployForShoot(ctx context.Context, namespace, name string, files map[string][]byte) error {
	_, err := a.deployForShootWritten(ctx, namespace, name, files)
	return err
}

// deployForShootWritten is deployForShoot that also returns the ManagedResource as the API server answered this
// call's create or update of it (its new generation; the status it had then), or nil when it wrote none because the
// ManagedResource already had that content. The answer is what a live read right after would return, without
// that read.
func (a *Actuator) deployForShootWritten(ctx context.Context, namespace, name string, files map[string][]byte) (*resourcesv1alpha1.ManagedResource, error) {
	a.removed.forget(namespace, name) // deployed again: a cache miss no longer means it is gone (delete_removedmemory.go)
	c := &managedResourceWrites{Client: a.client, live: a.apiReader}
	if err := retry.OnError(retry.DefaultBackoff, lostRace, func() error {
		return managedresources.CreateForShoot(ctx, c, namespace, name, Origin, false, files)
	}); err != nil {
		return nil, fmt.Errorf("deploying ManagedResource %s/%s: %w", namespace, name, err)
	}
	return c.written, nil
}

// managedResourceWrites is a client that keeps the API server's answer to the last successful create or update
// of a ManagedResource sent through it (Gardener's CreateForShoot writes with the object it read and gets the
// answer back in it, but does not return it).
//
// It also reads a ManagedResource from the API server once a create of it has answered AlreadyExists: the cache
// holds only ManagedResources labelled with our origin or the field's extension's (cache.go), so one of our names
// without that label (created by hand, or by a release of Gardener's helper that set no origin) is missing there
// although it exists. The retry then reads it live and updates it, which sets the label, and the cache has it from
// then on.
type managedResourceWrites struct {
	client.Client

	live     client.Reader
	readLive bool
	written  *resourcesv1alpha1.ManagedResource
}

func (c *managedResourceWrites) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*resourcesv1alpha1.ManagedResource); ok && c.readLive && c.live != nil {
		return c.live.Get(ctx, key, obj, opts...)
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *managedResourceWrites) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	err := c.Client.Create(ctx, obj, opts...)
	if _, ok := obj.(*resourcesv1alpha1.ManagedResource); ok && apierrors.IsAlreadyExists(err) {
		c.readLive = true
	}
	c.keep(obj, err)
	return err
}

func (c *managedResourceWrites) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	err := c.Client.Update(ctx, obj, opts...)
	c.keep(obj, err)
	return err
}

func (c *managedResourceWrites) keep(obj client.Object, err error) {
	if mr, ok := obj.(*resourcesv1alpha1.ManagedResource); ok && err == nil {
		c.written = mr.DeepCopy()
	}
}

func lostRace(err error) bool { return apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) }
