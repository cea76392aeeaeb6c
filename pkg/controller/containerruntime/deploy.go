// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"

	"github.com/gardener/gardener/pkg/utils/managedresources"
)

// deployForShoot creates or updates the ManagedResource namespace/name (and its content-addressed Secret) with
// files. Gardener's helper reads and then updates the ManagedResource with its resourceVersion, so it loses to
// anyone who writes it in between: gardener-resource-manager updating its status, or another pool's reconcile
// (pools run in parallel and all deploy the same shoot-wide ManagedResource). The loser retries and then finds
// the object as it wants it, instead of reporting a lastError (or, in the uninstall swap, failing the Delete).
func (a *Actuator) deployForShoot(ctx context.Context, namespace, name string, files map[string][]byte) error {
	if err := retry.OnError(retry.DefaultBackoff, lostRace, func() error {
		return managedresources.CreateForShoot(ctx, a.client, namespace, name, Origin, false, files)
	}); err != nil {
		return fmt.Errorf("deploying ManagedResource %s/%s: %w", namespace, name, err)
	}
	return nil
}

func lostRace(err error) bool { return apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) }
