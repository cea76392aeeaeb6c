// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package releases is the node's layout of gVisor releases side by side, and what the installer remembers about
// them. Under the bin dir (Gardener's ContainerRuntime binaryPath, first on containerd's PATH):
//
//	gvisor/releases/<id>/runsc                       one release: its runsc, its shim and, when the release
//	gvisor/releases/<id>/containerd-shim-runsc-v1    has them, its gvisor-bin/ helpers (runsc finds them next to
//	gvisor/releases/<id>/gvisor-bin/...              its own resolved path), plus the runsc.toml that sandboxes
//	gvisor/releases/<id>/runsc.toml                  started with this release read
//	gvisor/current -> releases/<id>                  the release new sandboxes get: the one switch
//	gvisor/state.json                                proven releases (newest first) and failed attempts
//	runsc -> gvisor/current/runsc                    the names containerd and operators look up on PATH
//	containerd-shim-runsc-v1 -> gvisor/current/containerd-shim-runsc-v1
//
// and /etc/containerd/runsc.toml, the runsc handler's ConfigPath, is a link to <bin-dir>/gvisor/current/runsc.toml.
//
// Why this shape: the handler's containerd configuration never names a release, so a release change needs no
// containerd restart; renaming one link (current) switches the shim, runsc.toml and, through runsc.toml's
// binary_name, runsc together. The runsc shim reads runsc.toml when it creates a sandbox and keeps binary_name in
// the sandbox's bundle (state.json) for its whole life, so a sandbox started with release A is exec'd, stopped and
// deleted by A's runsc after the node switched to B: gVisor does not support replacing runsc under running
// sandboxes (google/gvisor#5054), and runsc must sit next to the gvisor-bin/ of its own release
// (google/gvisor#13718). A release stays on the node while a sandbox's bundle names it (InUse).
//
// The release id is the gVisor version and a digest of every file's checksum: two builds of one version (a
// rebuild) are two releases.
package releases
