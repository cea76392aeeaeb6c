// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// GroupName is the API group of the gVisor provider configuration (unchanged from the field's extension).
	GroupName = "gvisor.runtime.extensions.config.gardener.cloud"
	// Version is the API version of this package.
	Version = "v1alpha1"
	// Kind is the kind of the provider configuration.
	Kind = "GVisorConfiguration"
	// APIVersion is the apiVersion a GVisorConfiguration must carry.
	APIVersion = GroupName + "/" + Version
)

// SchemeGroupVersion is the group version of this package's types.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: Version}

// GVisorConfiguration is the providerConfig of a ContainerRuntime of type gvisor.
type GVisorConfiguration struct {
	metav1.TypeMeta `json:",inline"`

	// ConfigFlags are runsc flags (name without the leading dashes -> value) written to runsc.toml on every node
	// of the worker pool, for example {"net-raw": "true"} which Istio's init container needs.
	// Only allowlisted flags with valid values are accepted (see AllowedFlags), and only sets that runsc's own
	// configuration code (the gVisor release the nodes run) accepts. debug-log must be under DebugLogDir
	// (/var/log/runsc/), each path element at most MaxPathElement (255) bytes and the path at most
	// MaxDebugLogPath (1024), with every variable (DebugLogVariables) counted as 64 bytes; see docs/usage.md.
	// +optional
	ConfigFlags map[string]string `json:"configFlags,omitempty"`

	// SandboxMetrics turns the node's gVisor metric server on or off for this worker pool, overriding the
	// landscape's default (the extension's sandboxMetrics value, off unless the operator turned it on). On: every
	// node of the pool runs the metric server (its memory on every node: BENCHMARKS.md, "Sandbox metrics") and
	// the pool's runsc.toml gets runsc's metric-server flag, so that sandboxes started from then on export their
	// metrics; sandboxes started before keep running without. Unset: the landscape's default. See docs/usage.md.
	// +optional
	SandboxMetrics *SandboxMetrics `json:"sandboxMetrics,omitempty"`

	// TestImageTag is kept so that configurations written for the field's extension still decode.
	// What the controller does with it is the controller's decision (see its documentation).
	// +optional
	TestImageTag *string `json:"testImageTag,omitempty"`
}

// SandboxMetrics is the worker pool's choice about the node's gVisor metric server.
type SandboxMetrics struct {
	// Enabled runs the metric server on the pool's nodes (true) or not (false), whatever the landscape's default.
	Enabled bool `json:"enabled"`
}
