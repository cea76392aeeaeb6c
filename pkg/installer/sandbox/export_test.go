// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox

import (
	"context"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

// CgroupParentOf is the cgroup parent Prove derives from the containerd at socket.
func CgroupParentOf(ctx context.Context, socket string) (string, error) {
	conn, err := verify.Dial(socket)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	return besteffortParent(ctx, runtimeapi.NewRuntimeServiceClient(conn))
}

// Remove is remove: stopping and removing a proof sandbox that ran.
func Remove(ctx context.Context, rs runtimeapi.RuntimeServiceClient, id string) error {
	return remove(ctx, rs, id)
}
