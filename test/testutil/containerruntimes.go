// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package testutil

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// ContainerRuntimesDone is a check for Eventually: nil once c lists exactly want ContainerRuntimes (opts narrow the
// list, e.g. client.InNamespace) that all satisfy done (nil: any), else an error saying how far they got.
func ContainerRuntimesDone(ctx context.Context, c client.Reader, want int, done func(*extensionsv1alpha1.ContainerRuntime) bool, opts ...client.ListOption) error {
	list := &extensionsv1alpha1.ContainerRuntimeList{}
	if err := c.List(ctx, list, opts...); err != nil {
		return fmt.Errorf("listing ContainerRuntimes: %w", err)
	}
	n := 0
	for i := range list.Items {
		if done == nil || done(&list.Items[i]) {
			n++
		}
	}
	if len(list.Items) == want && n == want {
		return nil
	}
	return fmt.Errorf("%d ContainerRuntimes, %d of them done, want %d done", len(list.Items), n, want)
}
