// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package binaries verifies the gVisor release the installation image carries (--source) and keeps the node's
// copy (--bin-dir) in step with it.
//
// The release is: runsc, containerd-shim-runsc-v1, an optional gvisor-bin/ directory of sidecar binaries that must
// sit next to runsc (and match its release), and SHA512SUMS listing every file. Verification happens before
// anything on the node changes: every file must be listed with the right checksum, every listed file must exist,
// and every file must be a static ELF executable for the node's architecture (an arm64 runsc copied onto an amd64
// node would only fail at the first sandbox start, on every pod). CheckAnchor then compares the release with the
// controller's sums (anchor.go): the image's SHA512SUMS travels with the image it verifies, the controller's does not.
//
// The bin dir is first on containerd's PATH: Plan writes only the release's names there, and Foreign lists other
// files containerd or a shim could run from there (foreign.go), which the installer reports and leaves alone.
package binaries
