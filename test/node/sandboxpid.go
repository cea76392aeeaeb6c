// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"fmt"
	"slices"
)

// RunscSandboxPID returns the PID of the runsc sandbox process (the sentry) of the pod sandbox id: tests that
// stop it to make a sandbox hang, or measure it.
func (n *Node) RunscSandboxPID(id string) (int, error) {
	for _, p := range n.nodeProcs() {
		if len(p.cmdline) > 0 && p.cmdline[0] == "runsc-sandbox" && slices.Contains(p.cmdline, id) {
			return p.pid, nil
		}
	}
	return 0, fmt.Errorf("no runsc-sandbox process for sandbox %s on the node", id)
}
