// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestLog is a Config.Log that writes each step's line to the test's log.
func TestLog(t testing.TB) io.Writer { return testLog{t} }

type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Journal is the tail of a unit's journal on the node (kubelet, containerd), for failure messages.
func (n *Node) Journal(ctx context.Context, unit string, lines int) string {
	out, err := n.Run(ctx, fmt.Sprintf("journalctl -u %s --no-pager -o cat -n %d", unit, lines))
	if err != nil {
		return "(no journal of " + unit + ": " + err.Error() + ")"
	}
	return out
}
