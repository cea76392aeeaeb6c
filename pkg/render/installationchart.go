// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// installationChartValues are the installation chart's values (charts/internal/gvisor-installation/values.yaml),
// key for key: their JSON is what the chart gets. A test holds the two to each other (every key of values.yaml is a
// field here and every field a key there; the defaults the renderer decides are values.yaml's).
//
// The renderer decides every value that is a decision of the extension (mode, image, runsc.toml, the sandbox proof,
// nvproxy, the re-proof interval, the release sums, the readiness gate, sandbox metrics) and writes it, so no
// chart default decides for it. The omitempty fields keep the chart's default where the caller gave none: the
// scheduling (nodeSelector, nodeAffinity, tolerations) and the installer's resources, which the renderer never sets.
type installationChartValues struct {
	WorkerPool   string               `json:"workerPool"`
	Mode         Mode                 `json:"mode"`
	Image        string               `json:"image"`
	BinaryPath   string               `json:"binaryPath"`
	NodeSelector map[string]string    `json:"nodeSelector,omitempty"`
	NodeAffinity *corev1.NodeAffinity `json:"nodeAffinity,omitempty"`
	// RunscToml is the pool's runsc.toml flags table (install mode; empty in uninstall mode, which writes none).
	RunscToml   string              `json:"runscToml,omitempty"`
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// Resources are the installer container's; nil keeps the chart's (the renderer never sets them).
	Resources     *corev1.ResourceRequirements `json:"resources,omitempty"`
	ReadinessGate bool                         `json:"readinessGate"`
	ProveSandbox  bool                         `json:"proveSandbox"`
	// NVProxy is the pool's GPU decision (runscconfig.NVProxy); only install mode reads it.
	NVProxy bool `json:"nvproxy"`
	// ReproveInterval is formatInterval's form of the interval.
	ReproveInterval string `json:"reproveInterval"`
	// ReleaseSums are the checksum anchor (install mode): architecture -> SHA512SUMS text.
	ReleaseSums    map[string]string `json:"releaseSums,omitempty"`
	SandboxMetrics bool              `json:"sandboxMetrics"`
	// DebugLogs is NodeConfig.DebugLogs (install mode).
	DebugLogs bool `json:"debugLogs"`
}

// installationChart is the chart's values for valid values v and, in install mode, the pool's node configuration
// (nil in uninstall mode); v.Image is the image already resolved.
func installationChart(v InstallationValues, node *NodeConfig) installationChartValues {
	mode := v.Mode
	if mode == "" {
		mode = ModeInstall
	}
	interval := v.ReproveInterval
	if interval == 0 {
		interval = DefaultReproveInterval
	}
	c := installationChartValues{
		WorkerPool:      v.WorkerPool,
		Mode:            mode,
		Image:           v.Image,
		BinaryPath:      v.BinaryPath,
		NodeSelector:    v.NodeSelector,
		NodeAffinity:    v.NodeAffinity,
		Tolerations:     v.Tolerations,
		ReadinessGate:   v.ReadinessGate,
		ProveSandbox:    !v.SkipSandboxProof,
		NVProxy:         runscconfig.DefaultNVProxy,
		ReproveInterval: formatInterval(interval),
		SandboxMetrics:  v.SandboxMetrics,
	}
	if node != nil {
		c.RunscToml = string(node.RunscConfig)
		c.NVProxy = node.NVProxy
		c.ReleaseSums = node.ReleaseSums
		c.DebugLogs = node.DebugLogs
	}
	return c
}
