// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package binaries

import (
	"fmt"
	"sort"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// pathRuntimes are the names containerd and its shims look up on PATH when the runtime config names no absolute
// binary: containerd execs containerd-shim-<name>-<version> for every runtime type io.containerd.<name>.<version>,
// the runc shim execs "runc" (or the runtime's BinaryName), other shims exec crun, youki or runsc the same way, and
// containerd execs unpigz to unpack gzip layers when it finds it. Gardener's containerd drop-in puts the bin dir
// (/var/bin/containerruntimes) first on containerd's PATH, so a file of such a name there runs as root for every
// pod of that runtime, or for every image pull.
var pathRuntimes = []string{"runc", "crun", "youki", "runsc", "unpigz"}

// shimPrefix is the prefix of every shim binary containerd resolves on PATH.
const shimPrefix = "containerd-shim-"

// Foreign lists, sorted, the entries of binDir that containerd or a shim could run from PATH (shim-named files,
// runc and the other names in pathRuntimes) and that are not this release's own files, plus lookalikes of our
// own names (runsc.bak, containerd-shim-runsc-v1-debug, ...). The installer never writes, renames or removes them:
// another container runtime extension may own a shim there (the bin dir is Gardener's ContainerRuntime binaryPath
// for every runtime), so they are reported, not touched. Our own temporaries (tempPattern of package installer,
// leading dot) and gvisor-bin/ are not listed.
func Foreign(binDir string) ([]string, error) {
	entries, err := hostfs.ReadDirIfExists(binDir)
	if err != nil {
		return nil, fmt.Errorf("reading the bin dir %s to look for foreign shims: %w", binDir, err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if name == nodecontract.Runsc || name == nodecontract.Shim || name == nodecontract.SideDir || strings.HasPrefix(name, ".") {
			continue
		}
		if onPath(name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// onPath reports whether name is one containerd or a shim may run from PATH, or looks like one of ours.
func onPath(name string) bool {
	if strings.HasPrefix(name, shimPrefix) || strings.HasPrefix(name, nodecontract.Runsc) {
		return true
	}
	for _, n := range pathRuntimes {
		if name == n {
			return true
		}
	}
	return false
}
