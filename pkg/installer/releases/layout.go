// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package releases

import (
	"crypto/sha512"
	"encoding/hex"
	"path"
	"regexp"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/binaries"
)

// Node paths relative to the bin dir, slash-separated.
const (
	// Dir holds everything of gVisor in the bin dir.
	Dir = "gvisor"
	// ReleasesDir holds one directory per release.
	ReleasesDir = Dir + "/releases"
	// CurrentLink is the link to the release new sandboxes get.
	CurrentLink = Dir + "/current"
	// StateFile records proven and failed releases.
	StateFile = Dir + "/state.json"
	// StagedDir holds what gardener-node-agent writes for the OperatingSystemConfig mode's activation (installer
	// ActionActivate): the release as the installation image carries it (StagedRelease), the pool's runsc flags
	// table (StagedFlags) and the controller's checksum anchor (StagedSums). Nothing runs from it: the activation
	// copies the release into its own directory, as the DaemonSet's installer does from the image.
	StagedDir = Dir + "/staged"
	// StagedRelease is the staged release directory: runsc, containerd-shim-runsc-v1, SHA512SUMS.
	StagedRelease = StagedDir + "/release"
	// StagedFlags is the staged runsc flags table (runscconfig.Table).
	StagedFlags = StagedDir + "/runsc-flags.toml"
	// StagedSums is the directory of the staged checksum anchor, SHA512SUMS.<arch> (binaries.AnchorFile).
	StagedSums = StagedDir + "/release-sums"
	// LegacyPrefix starts the id of a release adopted from the flat layout of older installers (and of the old
	// gVisor extension): runsc and the shim directly in the bin dir.
	LegacyPrefix = "adopted-"
)

// unsafeChars are replaced in ids: an id is one path component.
var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ID names a release by its version and a digest of its files' names and checksums.
func ID(rel *binaries.Release) string {
	h := sha512.New()
	for _, f := range rel.Files {
		h.Write([]byte(f.Name + " " + f.Sum + "\n"))
	}
	return sanitize(rel.Version()) + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// LegacyID names a release adopted from the flat layout by its runsc's checksum.
func LegacyID(runscSum string) string { return LegacyPrefix + runscSum[:12] }

func sanitize(s string) string {
	s = strings.Trim(unsafeChars.ReplaceAllString(s, "_"), "._")
	if s == "" {
		return "unknown"
	}
	return s
}

// ReleaseDir is the bin-dir-relative directory of release id.
func ReleaseDir(id string) string { return path.Join(ReleasesDir, id) }

// CurrentTarget is what CurrentLink points to for release id (relative, so the link resolves on the node and
// under the installer's host root alike).
func CurrentTarget(id string) string { return path.Join("releases", id) }

// IDOfTarget is the release id of a CurrentLink target, "" for one this package does not write.
func IDOfTarget(target string) string {
	dir, id := path.Split(path.Clean(target))
	if path.Clean(dir) != "releases" || id == "" || id == "." {
		return ""
	}
	return id
}

// PathLink is the target of the bin dir's name for a release file (runsc, the shim): through current.
func PathLink(name string) string { return path.Join(CurrentLink, name) }
