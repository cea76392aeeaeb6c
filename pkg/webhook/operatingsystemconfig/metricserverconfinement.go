// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"

// metricServerConfinement is systemd's sandboxing of the metric server unit: it keeps root, which owns the
// sandboxes' control sockets, and loses everything else a root process has. Its view of /run is an empty read-only
// tmpfs with only the runsc root bound in (read-only: it reads state files and connects to control sockets), so it
// reaches neither containerd's socket nor the shims', nor the system bus or systemd's private socket; no
// capabilities, no devices, no kernel tunables, logs or modules, no new privileges, no namespaces, only the system
// calls of an ordinary service. ExecStartPre (with "+", outside the sandbox) creates the runsc root if no gVisor pod
// made it yet, so that the bind mount exists and shows the sandboxes created later. `systemd-analyze security` rates
// the unit (BENCHMARKS.md); TestNodeAgentMetricServer runs it under a real systemd.
var metricServerConfinement = []string{
	"ExecStartPre=+/bin/mkdir -p -m 0711 " + render.RunscRoot,
	"TemporaryFileSystem=/run:ro",
	"BindReadOnlyPaths=" + render.RunscRoot,
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
	"RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
	"SystemCallArchitectures=native",
	"SystemCallFilter=@system-service",
	"SystemCallFilter=~@privileged @resources",
	"SystemCallErrorNumber=EPERM",
}
