// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package runscconfig

import (
	"path"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

const (
	// NodePath is the runsc.toml containerd's runsc handler names (options.ConfigPath) on every node, whatever the
	// delivery mode: the handler's configuration never names a release.
	NodePath = "/etc/containerd/runsc.toml"
	// FileName is runsc.toml's name in a release's directory.
	FileName = "runsc.toml"
)

// ReleasePath is the node path of release id's runsc.toml in bin dir binDir.
func ReleasePath(binDir, id string) string {
	return path.Join(binDir, nodecontract.ReleaseDir(id), FileName)
}

// RunscPath is the node path of release id's runsc, the binary_name of its runsc.toml.
func RunscPath(binDir, id string) string {
	return path.Join(binDir, nodecontract.ReleaseDir(id), nodecontract.Runsc)
}

// LinkTarget is what NodePath links to in the release layout: the runsc.toml of the current release, so that
// switching the current link switches the shim, runsc.toml and, through binary_name, runsc together.
func LinkTarget(binDir string) string { return path.Join(binDir, nodecontract.CurrentLink, FileName) }
