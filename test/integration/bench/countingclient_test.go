// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package bench

import (
	"context"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// countingClient counts the requests a client.Client sends, by kind of request. It wraps a real client talking
// to the real API server: the point is to count, not to fake anything.
type countingClient struct {
	client.Client

	reads, writes atomic.Int64
}

func (c *countingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.reads.Add(1)
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *countingClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c.reads.Add(1)
	return c.Client.List(ctx, list, opts...)
}

func (c *countingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.writes.Add(1)
	return c.Client.Create(ctx, obj, opts...)
}

func (c *countingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.writes.Add(1)
	return c.Client.Update(ctx, obj, opts...)
}

func (c *countingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c.writes.Add(1)
	return c.Client.Patch(ctx, obj, patch, opts...)
}

func (c *countingClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	c.writes.Add(1)
	return c.Client.Apply(ctx, obj, opts...)
}

func (c *countingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.writes.Add(1)
	return c.Client.Delete(ctx, obj, opts...)
}

func (c *countingClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	c.writes.Add(1)
	return c.Client.DeleteAllOf(ctx, obj, opts...)
}

func (c *countingClient) Status() client.SubResourceWriter { return c.SubResource("status") }

func (c *countingClient) SubResource(sub string) client.SubResourceClient {
	return &countingSubResource{SubResourceClient: c.Client.SubResource(sub), c: c}
}

type countingSubResource struct {
	client.SubResourceClient

	c *countingClient
}

func (s *countingSubResource) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	s.c.writes.Add(1)
	return s.SubResourceClient.Create(ctx, obj, sub, opts...)
}

func (s *countingSubResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.c.writes.Add(1)
	return s.SubResourceClient.Update(ctx, obj, opts...)
}

func (s *countingSubResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.c.writes.Add(1)
	return s.SubResourceClient.Patch(ctx, obj, patch, opts...)
}

func (s *countingSubResource) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	s.c.writes.Add(1)
	return s.SubResourceClient.Apply(ctx, obj, opts...)
}
