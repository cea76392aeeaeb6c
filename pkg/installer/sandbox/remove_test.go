// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
)

// slowStop is a CRI runtime service whose StopPodSandbox takes stop, as a node that is slow to tear a gVisor
// sandbox down, and gives up with its caller's context.
type slowStop struct {
	runtimeapi.RuntimeServiceClient

	stop    time.Duration
	removed bool
}

func (s *slowStop) StopPodSandbox(ctx context.Context, _ *runtimeapi.StopPodSandboxRequest, _ ...grpc.CallOption) (*runtimeapi.StopPodSandboxResponse, error) {
	select {
	case <-time.After(s.stop):
		return &runtimeapi.StopPodSandboxResponse{}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *slowStop) RemovePodSandbox(context.Context, *runtimeapi.RemovePodSandboxRequest, ...grpc.CallOption) (*runtimeapi.RemovePodSandboxResponse, error) {
	s.removed = true
	return &runtimeapi.RemovePodSandboxResponse{}, nil
}

// TestRemovalHasItsOwnTime: a proof sandbox that ran is stopped and removed on a time of its own, so that a proof
// whose start used up its time on a slow node (the VM node under emulation: a gVisor sandbox taking 17 s to stop) is
// not failed by the teardown; the proof's cancellation does not cut the removal short either.
func TestRemovalHasItsOwnTime(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	rs := &slowStop{stop: 200 * time.Millisecond}
	if err := sandbox.Remove(ctx, rs, "proof"); err != nil || !rs.removed {
		t.Errorf("removing a sandbox whose stop outlasts the proof's time: %v (removed %v), want it stopped and removed", err, rs.removed)
	}
}
