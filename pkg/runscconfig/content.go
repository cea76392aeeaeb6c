// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package runscconfig

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

const (
	// TableName is the only table of runsc.toml the shim reads flags from.
	TableName = "runsc_config"
	// BinaryName is the root key of an installed runsc.toml naming the runsc of the release the file belongs to.
	BinaryName = "binary_name"
	// MetricServerAddress is the value of runsc's metric-server flag with sandbox metrics on, and the metric
	// server's --metric-server: runsc create records it in every new sandbox's state, and the metric server serves
	// exactly the sandboxes that recorded it. A fixed node path, not the server's listen address: the sandbox never
	// connects to it, and it stays the same across the server's restarts and address changes, so sandboxes created
	// earlier are served again by the next server.
	MetricServerAddress = "/run/gvisor-metric-server.sock"
	// metricServerFlag is runsc's flag that MetricServerAddress is the value of.
	metricServerFlag = "metric-server"
	// DebugLogFlag is runsc's flag naming where it writes its debug logs (the pool's, or v1alpha1.DefaultDebugLog for
	// debug and strace): a pool whose flags have it writes logs its nodes must hold to a budget.
	DebugLogFlag = "debug-log"
)

// Empty is the table without flags: what the installer installs when it is given none, since the shim needs the
// file ConfigPath names.
var Empty = []byte("[" + TableName + "]\n")

// Options are the extension's own contributions to a pool's runsc flags.
type Options struct {
	// SandboxMetrics adds runsc's metric-server flag (MetricServerAddress), which wins over a pool's own.
	SandboxMetrics bool
}

// Flags are the flags runsc gets on a pool's nodes: the pool's providerConfig.configFlags, already allowed
// (v1alpha1.ValidateFlags), with their defaults (v1alpha1.WithDefaults), without those each node decides itself
// (v1alpha1.NodeDecidedFlags: nvproxy, ForNode), and with the extension's own. pool is not changed.
func Flags(pool map[string]string, o Options) map[string]string {
	flags := v1alpha1.WithDefaults(pool)
	for _, name := range v1alpha1.NodeDecidedFlags() {
		if _, set := flags[name]; set {
			flags = maps.Clone(flags)
			delete(flags, name)
		}
	}
	if len(flags) == 0 {
		flags = nil
	}
	if o.SandboxMetrics {
		flags = maps.Clone(flags)
		if flags == nil {
			flags = map[string]string{}
		}
		flags[metricServerFlag] = MetricServerAddress
	}
	return flags
}

// Table is the [runsc_config] table of flags: one `  name = "value"` line per flag, sorted by name, so that the
// same flags always give the same bytes (and the installation pods' checksum annotation changes only when the
// content does). strconv.Quote gives a TOML basic string for every value the allowlist lets through (no quotes,
// backslashes or control characters).
func Table(flags map[string]string) []byte {
	var b strings.Builder
	b.WriteString("[" + TableName + "]\n")
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		fmt.Fprintf(&b, "  %s = %s\n", name, strconv.Quote(flags[name]))
	}
	return []byte(b.String())
}

// ForRelease is the installed runsc.toml of release id in bin dir binDir (a node path): a header naming the
// release, binary_name (the release's own runsc, RunscPath), then table, the validated flags table.
func ForRelease(binDir, id string, table []byte) []byte {
	head := "# Written by gvisor-installer for release " + id + ": sandboxes started with it keep using its runsc.\n" +
		BinaryName + " = " + strconv.Quote(RunscPath(binDir, id)) + "\n\n"
	return append([]byte(head), table...)
}
