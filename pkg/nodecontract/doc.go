// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package nodecontract is where the seed side and the node side of this extension meet: the facts both must agree
// on, and nothing else.
//
// The seed side (pkg/render, which Gardener imports; pkg/runscconfig; the controller; the OperatingSystemConfig
// webhook) writes what a node reads: the release layout under the bin dir (layout.go), the names of the runsc
// registration in containerd's configuration (containerd.go). The node side (pkg/installer, cmd/gvisor-installer)
// writes what the seed reads back: the installer's one-line report in its pod's status (report.go) and, inside it,
// the GPU pre-flight's word for the node's driver (gpu.go). The readiness gate's node label has its own package,
// pkg/nodelabel, which both sides import as well.
//
// This package imports only the standard library, and no seed-side package imports pkg/installer
// (boundary_test.go holds both): Gardener's import of pkg/render compiles no node code, and a change on one side
// that the other must follow is a change here.
package nodecontract
