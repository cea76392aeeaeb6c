// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox

import (
	"context"

	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

// The kubelet's BestEffort QoS cgroup (--cgroup-root=/, cgroupsPerQOS, Gardener's settings) in each driver. The proof
// sandbox goes there rather than into a pod-level cgroup of its own: the kubelet removes pod cgroups of pods it does
// not know, and below the QoS cgroup its scan for pod cgroups does not look at a sandbox's own cgroup.
const (
	systemdBestEffort  = "kubepods-besteffort.slice"
	cgroupfsBestEffort = "/kubepods/besteffort"
)

// besteffortParent returns the BestEffort QoS cgroup in the cgroup driver containerd uses, which the kubelet's must
// match (verify.SystemdDriver). The driver matters to runsc: with systemd-cgroup = "true" in runsc.toml it rejects a
// cgroupfs path, as a real pod would be rejected.
func besteffortParent(ctx context.Context, rs runtimeapi.RuntimeServiceClient) (string, error) {
	systemd, err := verify.SystemdDriver(ctx, rs)
	if err != nil {
		return "", err
	}
	if systemd {
		return systemdBestEffort, nil
	}
	return cgroupfsBestEffort, nil
}
