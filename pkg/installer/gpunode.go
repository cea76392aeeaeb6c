// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// NodeGPU is the OperatingSystemConfig mode's part of GPU nodes, run by `gvisor-installer prove` before each
// proof: gardener-node-agent writes the pool's runsc.toml (the same flags table on every node, never nvproxy) at
// RunscConfig, and NodeGPU turns nvproxy on or off in it for this node, from the GPU pre-flight's verdict, as Install
// does in the DaemonSet mode (runscconfig.ForNode). node-agent rewrites the file whenever the pool's table changes,
// and restarts the proof unit then (the file is among the unit's filePaths), so the node's line is put back at once;
// the proof's timer runs it again every re-proof interval, so a driver loaded or upgraded after boot is judged
// within that interval. The file is replaced atomically, and only when its content changes.
type NodeGPU struct {
	// HostRoot is where the node's / is; RunscConfig the node path of runsc.toml.
	HostRoot, RunscConfig string
	// Preflight judges the driver on a node with NVIDIA devices.
	Preflight gpu.Preflight
	Logger    *slog.Logger
}

// Apply judges the node's driver (no verdict on a node without NVIDIA devices) and writes runsc.toml with nvproxy
// on exactly for a supported driver. A runsc.toml that is a link (the DaemonSet mode's release layout, the
// installer's to write) is left alone.
func (n NodeGPU) Apply(ctx context.Context) (*gpu.Verdict, error) {
	path := n.HostRoot + n.RunscConfig
	st, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.RunscConfig, err)
	}
	if !st.Mode().IsRegular() {
		n.Logger.Info("runsc.toml is the release layout's: its GPU setting is the installer's", "step", "gpu-node", "file", n.RunscConfig)
		return nil, nil
	}
	var verdict *gpu.Verdict
	present, err := gpu.HasDevices(n.HostRoot)
	switch {
	case err != nil:
		verdict = &gpu.Verdict{Status: gpu.Unreadable, Message: err.Error()}
	case present:
		v, err := n.Preflight.Check(ctx)
		if err != nil {
			v = gpu.Verdict{Status: gpu.Unreadable, Message: err.Error()}
		}
		verdict = &v
	}
	on := verdict != nil && verdict.NVProxy()
	data, err := os.ReadFile(path)
	if err != nil {
		return verdict, fmt.Errorf("%s: %w", n.RunscConfig, err)
	}
	want, err := runscconfig.ForNode(data, runscconfig.NodeOptions{NVProxy: on})
	if err != nil {
		return verdict, fmt.Errorf("%s: %w", n.RunscConfig, err)
	}
	if bytes.Equal(data, want) {
		return verdict, nil
	}
	if err := hostfs.WriteFileAtomic(path, want, st.Mode().Perm()); err != nil {
		return verdict, fmt.Errorf("writing %s with nvproxy %v: %w", n.RunscConfig, on, err)
	}
	n.Logger.Info("runsc.toml set for this node's GPUs", "step", "gpu-node", "file", n.RunscConfig, "nvproxy", on)
	return verdict, nil
}
