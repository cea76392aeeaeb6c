// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
)

// RuntimeClassValues are the values of the RuntimeClass chart. The zero value renders the chart's defaults.
type RuntimeClassValues struct {
	// NodeSelector replaces the RuntimeClass's scheduling.nodeSelector; nil or empty means Gardener's
	// containerruntime.worker.gardener.cloud/gvisor: "true".
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Tolerations are added to every pod using the RuntimeClass.
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// Overhead is the sandbox's per-pod cost; nil means none.
	Overhead *nodev1.Overhead `json:"-"`
	// ReadinessGate renders the readiness gate's shoot-wide objects (docs/readiness-gate.md); must match
	// InstallationValues.ReadinessGate (Shoot sets both).
	ReadinessGate bool `json:"readinessGate,omitempty"`
}

// Mode is what the installation DaemonSet does on each node of its pool.
type Mode string

const (
	// ModeInstall (the default; the zero value means it too) runs `gvisor-installer install`: copy gVisor,
	// register runsc with containerd, then idle; a Ready pod means its node can run gVisor pods.
	ModeInstall Mode = "install"
	// ModeUninstall runs `gvisor-installer uninstall`: unregister runsc (and remove the readiness gate's node
	// label), remove what install wrote, then idle; a Ready pod means its node is clean. It
	// renders the same DaemonSet gvisor-installation-<pool> (no runsc ConfigMap), so that replacing the
	// content of the pool's ManagedResource with it rolls the pods from install to uninstall node by node,
	// never both on one node.
	ModeUninstall Mode = "uninstall"
)

// ModeLabel marks the uninstall mode's DaemonSet and its pods with the value "uninstall" (install mode renders no
// such label, so that its output stayed what it was). It is not part of the DaemonSet's selector, which is
// immutable and the same in both modes: select uninstall pods with the selector labels plus ModeLabel=uninstall.
const ModeLabel = "gvisor.runtime.extensions.gardener.cloud/mode"

// InstallationValues are the typed input of one worker pool's installation chart; the renderer makes the chart's
// values of them (installationChartValues).
type InstallationValues struct {
	// WorkerPool is the pool's name (a DNS label of at most 43 characters); required.
	WorkerPool string
	// Mode is ModeInstall (also the zero value) or ModeUninstall. In uninstall mode ConfigFlags are
	// neither validated nor rendered (uninstall needs no runsc config).
	Mode Mode
	// NodeSelector are the labels of the pool's nodes (selector matchLabels).
	// worker.gardener.cloud/cri-name: containerd is always added.
	NodeSelector map[string]string
	// NodeAffinity expresses selector matchExpressions; nil means none.
	NodeAffinity *corev1.NodeAffinity
	// BinaryPath is the host directory for runsc and the shim (ContainerRuntime spec.binaryPath); required,
	// absolute and clean.
	BinaryPath string
	// ConfigFlags are runsc flags, checked against the allowlist (v1alpha1.ValidateFlags). The chart gets them as
	// the pool's runsc.toml flags table (its runscToml value), which runscconfig.Flags and runscconfig.Table make of
	// them with their defaults and the extension's own flags, without changing this map.
	ConfigFlags map[string]string
	// Tolerations of the installation pods; nil means the chart default (tolerate everything).
	Tolerations []corev1.Toleration
	// Image, if set, replaces the installation image from the image vector (full reference).
	Image string
	// TargetVersion is the shoot's Kubernetes version, used to pick an image vector entry that has a
	// targetVersion constraint; empty matches entries without one.
	TargetVersion string
	// ReadinessGate renders the readiness gate's per-pool objects (docs/readiness-gate.md); must match
	// RuntimeClassValues.ReadinessGate (Shoot sets both).
	ReadinessGate bool
	// Architecture is the pool's machine architecture (GOARCH: the Shoot's spec.provider.workers[].machine.architecture).
	// Install mode passes the installer only that architecture's release sums (the checksum anchor of
	// imagevector/gvisor-sums.yaml or the operator's overwrite); empty passes every architecture's, and the installer
	// picks its node's (--node-arch). An architecture the sums do not have is an error.
	Architecture string
	// SkipSandboxProof renders the chart with proveSandbox: false: the installer then reports Ready once runsc is
	// registered and verified over CRI, without starting a gVisor sandbox (--prove-sandbox=false). The zero value
	// renders the proof on. An operator setting (Settings.SkipSandboxProof).
	SkipSandboxProof bool
	// ReproveInterval renders the chart's reproveInterval (ValidateReproveInterval); zero renders
	// DefaultReproveInterval. An operator setting (Settings.ReproveInterval).
	ReproveInterval time.Duration
	// SandboxMetrics renders runsc's metric-server flag (runscconfig.MetricServerAddress) into the pool's runsc.toml
	// and the metric server container into its pods (install mode). Shoot sets it from Settings.SandboxMetrics and the
	// pool's providerConfig.sandboxMetrics (v1alpha1.SandboxMetricsFor).
	SandboxMetrics bool
}
