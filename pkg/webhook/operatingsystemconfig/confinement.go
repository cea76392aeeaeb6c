// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// confinement is systemd's sandboxing shared by the long-running units of ours (the metric server, the keeper of
// the debug logs): they keep root, which owns what they read or trim, and lose everything else a root process has:
// no capabilities, no devices, no kernel tunables, logs or modules, no new privileges, no namespaces, a read-only
// file system, only the system calls of an ordinary service. Each unit adds its view of /run and what it may write
// (unitConfinement). `systemd-analyze security` rates the units (BENCHMARKS.md); test/nodeagent runs them under a
// real systemd.
var confinement = []string{
	"ProtectSystem=strict",
	"ProtectHome=yes",
	"PrivateTmp=yes",
	"PrivateDevices=yes",
	"DevicePolicy=closed",
	"PrivateMounts=yes",
	"CapabilityBoundingSet=",
	"NoNewPrivileges=yes",
	"ProtectKernelTunables=yes",
	"ProtectKernelModules=yes",
	"ProtectKernelLogs=yes",
	"ProtectControlGroups=yes",
	"ProtectClock=yes",
	"ProtectHostname=yes",
	"ProtectProc=invisible",
	"RestrictNamespaces=yes",
	"RestrictRealtime=yes",
	"RestrictSUIDSGID=yes",
	"LockPersonality=yes",
	"MemoryDenyWriteExecute=yes",
	"RemoveIPC=yes",
	"UMask=0077",
	"SystemCallArchitectures=native",
	"SystemCallFilter=@system-service",
	"SystemCallFilter=~@privileged @resources",
	"SystemCallErrorNumber=EPERM",
}

// unitConfinement is confinement for a unit that sees only runDir of the node's /run and writes nowhere but
// writable ("" for nowhere): its /run is an empty read-only tmpfs with only runDir bound in read-only ("" for none), so it reaches
// neither containerd's socket nor the shims', nor the system bus or systemd's private socket. ExecStartPre (with "+",
// outside the sandbox) creates the directories first: a bind mount of a directory that is not there yet would be
// skipped, and the unit would not see what appears there later.
func unitConfinement(runDir, writable string) []string {
	var lines, dirs []string
	for _, d := range []string{runDir, writable} {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) > 0 {
		lines = append(lines, "ExecStartPre=+/bin/mkdir -p -m 0711 "+strings.Join(dirs, " "))
	}
	lines = append(lines, "TemporaryFileSystem=/run:ro")
	if runDir != "" {
		lines = append(lines, "BindReadOnlyPaths="+runDir)
	}
	if writable != "" {
		lines = append(lines, "ReadWritePaths="+writable)
	}
	return append(lines, confinement...)
}

// metricCollectorConfinement: the collector reads the runsc root (state files, control sockets) and writes only its
// socket's directory, and has no network: PrivateNetwork and Unix sockets alone. systemd creates that directory
// (RuntimeDirectory, root's, kept across the unit's restarts so that the front's view of it stays current) before it
// builds the unit's namespace. Until the runsc root exists (the node's first sandbox, the proof's, creates it) the
// unit fails to start and systemd tries again (Restart=always).
func metricCollectorConfinement() []string {
	lines := []string{
		"RuntimeDirectory=" + strings.TrimPrefix(render.MetricCollectorDir, "/run/"), "RuntimeDirectoryMode=0711", "RuntimeDirectoryPreserve=restart",
		"TemporaryFileSystem=/run:ro", "BindReadOnlyPaths=" + render.RunscRoot, "BindPaths=" + render.MetricCollectorDir,
	}
	return append(append(lines, confinement...), "PrivateNetwork=yes", "RestrictAddressFamilies=AF_UNIX", "IPAddressDeny=any")
}

// metricFrontConfinement: the front runs as a user of its own that systemd allocates while it runs (DynamicUser),
// and sees of /run the collector's directory alone, read-only (a Unix socket on a read-only mount still connects).
func metricFrontConfinement() []string {
	lines := []string{"TemporaryFileSystem=/run:ro", "BindReadOnlyPaths=" + render.MetricCollectorDir, "DynamicUser=yes"}
	return append(append(lines, confinement...), "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6")
}
