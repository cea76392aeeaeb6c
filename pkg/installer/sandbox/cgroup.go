// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// The kubelet's BestEffort QoS cgroup (--cgroup-root=/, cgroupsPerQOS, Gardener's settings) in each driver. The proof
// sandbox goes there rather than into a pod-level cgroup of its own: the kubelet removes pod cgroups of pods it does
// not know, and below the QoS cgroup its scan for pod cgroups does not look at a sandbox's own cgroup.
const (
	systemdBestEffort  = "kubepods-besteffort.slice"
	cgroupfsBestEffort = "/kubepods/besteffort"
)

// besteffortParent returns the BestEffort QoS cgroup in the cgroup driver containerd uses, which the kubelet's must
// match: CRI RuntimeConfig where containerd implements it (the kubelet asks the same), otherwise the default
// runtime's SystemdCgroup option from the CRI's verbose Status. The driver matters to runsc: with
// systemd-cgroup = "true" in runsc.toml it rejects a cgroupfs path, as a real pod would be rejected.
func besteffortParent(ctx context.Context, rs runtimeapi.RuntimeServiceClient) (string, error) {
	rc, err := rs.RuntimeConfig(ctx, &runtimeapi.RuntimeConfigRequest{})
	switch {
	case err == nil && rc.GetLinux() != nil:
		if rc.GetLinux().GetCgroupDriver() == runtimeapi.CgroupDriver_SYSTEMD {
			return systemdBestEffort, nil
		}
		return cgroupfsBestEffort, nil
	case err != nil && status.Code(err) != codes.Unimplemented:
		return "", fmt.Errorf("CRI RuntimeConfig (the node's cgroup driver): %w", err)
	}
	st, err := rs.Status(ctx, &runtimeapi.StatusRequest{Verbose: true})
	if err != nil {
		return "", fmt.Errorf("CRI Status (the node's cgroup driver): %w", err)
	}
	systemd, err := systemdCgroup(st.GetInfo())
	if err != nil {
		return "", err
	}
	if systemd {
		return systemdBestEffort, nil
	}
	return cgroupfsBestEffort, nil
}

// systemdCgroup reads the default runtime's options.SystemdCgroup from the verbose info's "config" JSON.
func systemdCgroup(info map[string]string) (bool, error) {
	var cfg struct {
		Containerd struct {
			DefaultRuntimeName string `json:"defaultRuntimeName"`
			Runtimes           map[string]struct {
				Options map[string]any `json:"options"`
			} `json:"runtimes"`
		} `json:"containerd"`
	}
	if err := json.Unmarshal([]byte(info["config"]), &cfg); err != nil {
		return false, fmt.Errorf("decoding the CRI config of the verbose Status (the node's cgroup driver): %w", err)
	}
	def := cfg.Containerd.DefaultRuntimeName
	if def == "" {
		def = "runc"
	}
	on, _ := cfg.Containerd.Runtimes[def].Options["SystemdCgroup"].(bool)
	return on, nil
}
