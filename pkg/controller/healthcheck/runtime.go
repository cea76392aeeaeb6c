// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// readRuntime reads the ContainerRuntime a check is about (the library passes only its key): the pool name is in
// its spec.
func readRuntime(ctx context.Context, seed client.Reader, key types.NamespacedName) (*extensionsv1alpha1.ContainerRuntime, error) {
	cr := &extensionsv1alpha1.ContainerRuntime{}
	if err := seed.Get(ctx, key, cr); err != nil {
		return nil, fmt.Errorf("reading ContainerRuntime %s: %w", key, err)
	}
	return cr, nil
}
