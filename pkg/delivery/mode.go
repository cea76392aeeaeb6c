// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package delivery names the two ways the extension puts gVisor on a worker pool's nodes. An operator selects one
// per landscape (extension chart value deliveryMode, controller flag --delivery-mode); docs/delivery-modes.md
// compares them point by point.
package delivery

import (
	"fmt"
	"strings"
)

// Mode is how gVisor reaches a pool's nodes.
type Mode string

const (
	// DaemonSet (the default): a per-pool installation DaemonSet in the shoot installs runsc, registers it with
	// containerd and proves a sandbox before its pod is Ready.
	DaemonSet Mode = "daemonset"
	// OperatingSystemConfig means the extension's OperatingSystemConfig webhook adds runsc's files (imageRef) and its
	// containerd plugin config to the pool's OSC; gardener-node-agent applies them before kubelet starts. No pod
	// in the shoot touches the node.
	OperatingSystemConfig Mode = "operatingsystemconfig"
)

// Modes lists every mode, the default first.
var Modes = []Mode{DaemonSet, OperatingSystemConfig}

// Parse returns the Mode named s; the empty string is the default (DaemonSet).
func Parse(s string) (Mode, error) {
	if s == "" {
		return DaemonSet, nil
	}
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown delivery mode %q: use one of %s", s, strings.Join(names, ", "))
}
