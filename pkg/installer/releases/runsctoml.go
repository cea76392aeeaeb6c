// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package releases

import (
	"path"
	"strconv"
)

// RunscTomlFor is the runsc.toml of release id in bin dir binDir (a node path): binary_name, the absolute path of
// the release's own runsc, then flags, the validated [runsc_config] table the chart renders. The shim keeps
// binary_name for the life of every sandbox it creates (see the package doc).
func RunscTomlFor(binDir, id string, flags []byte) []byte {
	runsc := path.Join(binDir, ReleaseDir(id), "runsc")
	head := "# Written by gvisor-installer for release " + id + ": sandboxes started with it keep using its runsc.\n" +
		"binary_name = " + strconv.Quote(runsc) + "\n\n"
	return append([]byte(head), flags...)
}
