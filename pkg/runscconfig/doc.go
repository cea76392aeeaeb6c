// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package runscconfig is runsc's node configuration, the one owner of the runsc.toml that containerd's runsc shim
// reads at every sandbox start, for both delivery modes:
//
//   - its content: the pool's runsc flags with their defaults and the extension's own (Flags), the [runsc_config]
//     table in one byte-stable form (Table), and the installed file with binary_name, the runsc of the release
//     the file belongs to (ForRelease);
//   - its checks: Validate and ValidateInstalled, which the installer runs on every table it is given (the
//     DaemonSet's ConfigMap, what node-agent staged) and on the installed file it reads back, before it acts on
//     either;
//   - its places: the runsc handler's ConfigPath containerd reads (NodePath), the file in each release's directory
//     (ReleasePath) and the link from the one to the other (LinkTarget).
//
// The renderer takes the table from here for the installation chart's runsc ConfigMap (the DaemonSet mode) and
// hands it, typed, to the OperatingSystemConfig webhook, which stages it on the node; in both modes the installer
// builds the installed file from it (ForRelease, ForNode) in the same release layout. The shim
// passes every [runsc_config] entry to runsc as --name=value, so the values are strings; it keeps binary_name in
// each sandbox's bundle for the sandbox's whole life (pkg/installer/releases says why that matters). The
// paths come from the release layout's names in pkg/nodecontract: this package imports no node code.
package runscconfig
