// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodecontract

// The runsc registration in containerd's configuration: what the installer writes into config.toml or DropInPath
// (pkg/installer/containerdconfig) and the OperatingSystemConfig webhook into its containerd drop-in. They are node
// paths.
const (
	// RuntimeName is the CRI runtime handler's name; the RuntimeClass refers to it.
	RuntimeName = "runsc"
	// RuntimeType selects containerd-shim-runsc-v1 (Shim).
	RuntimeType = "io.containerd.runsc.v1"
	// OptionsTypeURL tells containerd how to pass the options to the runsc shim.
	OptionsTypeURL = "io.containerd.runsc.v1.options"
	// ContainerdConfigPath is containerd's main configuration file.
	ContainerdConfigPath = "/etc/containerd/config.toml"
	// DropInPath is the installer's drop-in for configs that import conf.d/*.toml (version 3 and later only).
	DropInPath = "/etc/containerd/conf.d/gvisor-runsc.toml"
)
