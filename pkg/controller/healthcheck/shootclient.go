// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/shootclient"
)

// newShootClient is the shoot client the library's actuator builds for a TargetClient check (package shootclient).
func newShootClient(ctx context.Context, seed client.Client, namespace string) (client.Reader, error) {
	return shootclient.New(ctx, seed, namespace)
}
