// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodecontract

import "path"

// The files of a gVisor release, as the installation image carries it and as each release directory on the node
// holds it.
const (
	// Runsc is gVisor's runtime binary.
	Runsc = "runsc"
	// Shim is gVisor's containerd shim, which containerd finds on its PATH for RuntimeType.
	Shim = "containerd-shim-runsc-v1"
	// SideDir holds a release's optional helper binaries, which runsc looks up next to its own resolved path.
	SideDir = "gvisor-bin"
	// SumsFile is the release's checksum list, in `sha512sum` format.
	SumsFile = "SHA512SUMS"
)

// AnchorFile is the name of the controller's sums for goarch: SHA512SUMS.<goarch>, a key of the pool's runsc
// ConfigMap in the DaemonSet mode and a file under StagedSums in the OperatingSystemConfig mode (rendered from
// imagevector/gvisor-sums.yaml or the operator's overwrite).
func AnchorFile(goarch string) string { return SumsFile + "." + goarch }

// The release layout: node paths relative to the bin dir (Gardener's ContainerRuntime binaryPath), slash-separated.
// pkg/installer/releases documents the layout and why it has this shape.
const (
	// GVisorDir holds everything of gVisor in the bin dir.
	GVisorDir = "gvisor"
	// ReleasesDir holds one directory per release.
	ReleasesDir = GVisorDir + "/releases"
	// CurrentLink is the link to the release new sandboxes get.
	CurrentLink = GVisorDir + "/current"
	// StateFile records proven and failed releases.
	StateFile = GVisorDir + "/state.json"
	// StagedDir holds what gardener-node-agent writes for the OperatingSystemConfig mode's activation (installer
	// ActionActivate): the release as the installation image carries it (StagedRelease), the pool's runsc flags
	// table (StagedFlags) and the controller's checksum anchor (StagedSums). Nothing runs from it: the activation
	// copies the release into its own directory, as the DaemonSet's installer does from the image.
	StagedDir = GVisorDir + "/staged"
	// StagedRelease is the staged release directory: Runsc, Shim, SumsFile.
	StagedRelease = StagedDir + "/release"
	// StagedFlags is the staged runsc flags table (runscconfig.Table).
	StagedFlags = StagedDir + "/runsc-flags.toml"
	// StagedSums is the directory of the staged checksum anchor (AnchorFile).
	StagedSums = StagedDir + "/release-sums"
	// LegacyPrefix starts the id of a release adopted from the flat layout of older installers (and of the field's
	// extension): runsc and the shim directly in the bin dir.
	LegacyPrefix = "adopted-"
)

// ReleaseDir is the bin-dir-relative directory of release id.
func ReleaseDir(id string) string { return path.Join(ReleasesDir, id) }

// CurrentTarget is what CurrentLink points to for release id (relative, so the link resolves on the node and
// under the installer's host root alike).
func CurrentTarget(id string) string { return path.Join("releases", id) }

// IDOfTarget is the release id of a CurrentLink target, "" for one the installer does not write.
func IDOfTarget(target string) string {
	dir, id := path.Split(path.Clean(target))
	if path.Clean(dir) != "releases" || id == "" || id == "." {
		return ""
	}
	return id
}

// PathLink is the target of the bin dir's name for a release file (Runsc, Shim): through CurrentLink.
func PathLink(name string) string { return path.Join(CurrentLink, name) }
