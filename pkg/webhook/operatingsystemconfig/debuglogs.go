// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"path"
	"strings"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// DebugLogsUnitName holds runsc's debug logs to their budget in the OperatingSystemConfig mode (the DaemonSet
// mode's debug-logs container), on the nodes of a pool whose runsc flags write them (render.NodeConfig.DebugLogs).
const DebugLogsUnitName = "gvisor-debug-logs.service"

// debugLogsUnit runs `gvisor-installer keep-debug-logs` (pkg/installer/debuglogs) over the node's runsc debug log
// directory: above its budget the largest logs are truncated, so no tenant's system calls fill the node's disk.
// node-agent restarts it when the installer changes (FilePaths) and removes it when the pool's flags no longer write
// debug logs. It writes there and nowhere else, and has no network at all.
func debugLogsUnit(binDir string) extensionsv1alpha1.Unit {
	installer := path.Join(binDir, InstallerBinary)
	dir := strings.TrimSuffix(v1alpha1.DebugLogDir, "/")
	return longRunning{
		name:        DebugLogsUnitName,
		description: "gVisor: runsc's debug logs held to their budget (gardener-extension-runtime-gvisor)",
		execStart:   installer + " keep-debug-logs --dir=" + dir,
		memoryMax:   "64M",
		service:     append(unitConfinement("", dir), "PrivateNetwork=yes", "RestrictAddressFamilies=AF_UNIX", "IPAddressDeny=any"),
		binary:      installer,
	}.unit()
}
