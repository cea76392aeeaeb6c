// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"fmt"

	imagevectorutils "github.com/gardener/gardener/pkg/utils/imagevector"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// NodeConfig is what the nodes of one worker pool get from the extension, whatever the delivery mode: the DaemonSet
// mode's installation chart carries it to the installer, and the OperatingSystemConfig webhook writes it into the
// pool's OSC for gardener-node-agent.
type NodeConfig struct {
	// Image is the installation image (the installer, the metric server and the gVisor release), resolved from the
	// image vector for the shoot's Kubernetes version unless InstallationValues.Image names one.
	Image string
	// RunscConfig is the pool's runsc.toml flags table (runscconfig.Table of runscconfig.Flags): what the installer
	// installs with the release's binary_name.
	RunscConfig []byte
	// SandboxMetrics is whether the pool's nodes run the metric server; RunscConfig then has runsc's metric-server
	// flag.
	SandboxMetrics bool
	// NVProxy is the pool's GPU decision, from its providerConfig's configFlags.nvproxy (runscconfig.NVProxy): its
	// nodes with NVIDIA devices have their driver judged by the GPU pre-flight and turn runsc's nvproxy on when it
	// passes. RunscConfig never has nvproxy itself: each node decides it for its own driver.
	NVProxy bool
	// DebugLogs is whether the pool's runsc flags write debug logs (RunscConfig has debug-log: the pool's debug,
	// strace or debug-log): its nodes then run the keeper that holds them to a budget (pkg/installer/debuglogs).
	DebugLogs bool
	// ReleaseSums is the checksum anchor of the gVisor release in Image: architecture -> SHA512SUMS text, for the
	// pool's architecture only, or for every architecture when the pool's is unknown.
	ReleaseSums map[string]string
}

// DebugLogsContainer is the installation pods' container that holds the node's runsc debug logs to their budget
// (NodeConfig.DebugLogs).
const DebugLogsContainer = "debug-logs"

// nodeConfig is what install-mode values v give the pool's nodes. It is the one place the runsc flags get their
// defaults (v1alpha1.WithDefaults, through runscconfig.Flags).
func (r *Renderer) nodeConfig(v InstallationValues) (*NodeConfig, error) {
	image, err := r.installationImage(v)
	if err != nil {
		return nil, err
	}
	sums, err := r.releaseSums(v.Architecture)
	if err != nil {
		return nil, err
	}
	flags := runscconfig.Flags(v.ConfigFlags, runscconfig.Options{SandboxMetrics: v.SandboxMetrics})
	_, debugLogs := flags[runscconfig.DebugLogFlag]
	return &NodeConfig{
		Image:          image,
		RunscConfig:    runscconfig.Table(flags),
		SandboxMetrics: v.SandboxMetrics,
		DebugLogs:      debugLogs,
		NVProxy:        runscconfig.NVProxy(v.ConfigFlags),
		ReleaseSums:    sums,
	}, nil
}

// installationImage is v.Image, or else the image vector's installation image for the shoot's Kubernetes version.
func (r *Renderer) installationImage(v InstallationValues) (string, error) {
	if v.Image != "" {
		return v.Image, nil
	}
	var opts []imagevectorutils.FindOptionFunc
	if v.TargetVersion != "" {
		opts = append(opts, imagevectorutils.TargetVersion(v.TargetVersion))
	}
	img, err := r.images.FindImage(imagevector.ImageNameInstallation, opts...)
	if err != nil {
		return "", fmt.Errorf("finding image %q for target version %q: %w", imagevector.ImageNameInstallation, v.TargetVersion, err)
	}
	return img.String(), nil
}
