// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package binaries

import (
	"debug/buildinfo"
	"regexp"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// UnknownVersion is Version's answer for a runsc without Go build information (not a Go build, or stripped of it).
const UnknownVersion = "unknown"

// stampedVersion finds the version the release build stamps into runsc (hack/tools/gvisor-release.sh:
// -ldflags "-X gvisor.dev/gvisor/runsc/version.version=..."), which `runsc --version` prints.
var stampedVersion = regexp.MustCompile(`gvisor\.dev/gvisor/runsc/version\.version=(\S+)`)

// Version is the gVisor version of the release's runsc, read from its Go build information without running it (it
// may be built for another architecture than the installer's test machine, and the installer runs nothing from the
// release): the stamped version, else the module version it was built from, else UnknownVersion.
func (r *Release) Version() string {
	f := r.File(nodecontract.Runsc)
	if f == nil {
		return UnknownVersion
	}
	info, err := buildinfo.ReadFile(f.Path)
	if err != nil {
		return UnknownVersion
	}
	for _, s := range info.Settings {
		if m := stampedVersion.FindStringSubmatch(s.Value); s.Key == "-ldflags" && m != nil {
			return m[1]
		}
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return UnknownVersion
}
