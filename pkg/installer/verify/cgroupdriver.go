// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package verify

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// CgroupDriverReader reads the node's cgroup driver; verify.CRI is one.
type CgroupDriverReader interface {
	// SystemdCgroupDriver reports whether containerd (and so the kubelet, whose driver must match) uses the systemd
	// cgroup driver.
	SystemdCgroupDriver(ctx context.Context) (bool, error)
}

// SystemdCgroupDriver asks containerd over CRI which cgroup driver it uses (SystemdDriver).
func (c CRI) SystemdCgroupDriver(ctx context.Context) (bool, error) {
	conn, err := Dial(c.Socket)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	return SystemdDriver(ctx, runtimeapi.NewRuntimeServiceClient(conn))
}

// SystemdDriver returns whether containerd uses the systemd cgroup driver: CRI RuntimeConfig where containerd
// implements it (the kubelet asks the same), otherwise the default runtime's SystemdCgroup option from the CRI's
// verbose Status.
func SystemdDriver(ctx context.Context, rs runtimeapi.RuntimeServiceClient) (bool, error) {
	rc, err := rs.RuntimeConfig(ctx, &runtimeapi.RuntimeConfigRequest{})
	switch {
	case err == nil && rc.GetLinux() != nil:
		return rc.GetLinux().GetCgroupDriver() == runtimeapi.CgroupDriver_SYSTEMD, nil
	case err != nil && status.Code(err) != codes.Unimplemented:
		return false, fmt.Errorf("CRI RuntimeConfig (the node's cgroup driver): %w", err)
	}
	st, err := rs.Status(ctx, &runtimeapi.StatusRequest{Verbose: true})
	if err != nil {
		return false, fmt.Errorf("CRI Status (the node's cgroup driver): %w", err)
	}
	return systemdCgroup(st.GetInfo())
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
