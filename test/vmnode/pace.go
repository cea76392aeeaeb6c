// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The guest's pace: how much slower than the reference this guest runs now. Emulation under TCG is as fast as the
// machine's cores are free, so a wait on the guest (a pod's start, a systemd job, the kubelet's first sample) is
// bounded by its reference bound times the pace measured on that guest (Bound), not by a number tuned on one
// machine.
const (
	// paceProbeExecs is how many fork+exec the probe times in the guest: enough to average out a timer tick, few
	// enough to take a few seconds.
	paceProbeExecs = 20
	// referenceExec is one fork+exec of /bin/true in the guest at the pace the tests' VM bounds were set for: 100 ms,
	// measured on a 2-core machine of CI's kind loaded by parallel builds (shared/notes/vm-node.md); an idle machine
	// runs it in about half.
	referenceExec = 100 * time.Millisecond
)

// measurePace times paceProbeExecs fork+exec in the guest and keeps the pace (at least 1: a faster guest keeps the
// reference bounds).
func (n *Node) measurePace(ctx context.Context) error {
	out, err := n.Run(ctx, fmt.Sprintf(`s=$(date +%%s%%N); for i in $(seq %d); do /bin/true; done; echo $(( $(date +%%s%%N) - s ))`, paceProbeExecs))
	if err != nil {
		return fmt.Errorf("measuring the guest's pace: %w", err)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		return fmt.Errorf("measuring the guest's pace: %q: %w", out, err)
	}
	perExec := time.Duration(ns / paceProbeExecs)
	n.pace = max(1, float64(perExec)/float64(referenceExec))
	n.logf("pace: %s per fork+exec (reference %s): bounds x%.2f", perExec.Round(time.Millisecond), referenceExec, n.pace)
	return nil
}

// Pace is the factor by which the guest ran slower than the reference at its last boot (1: as fast or faster).
func (n *Node) Pace() float64 { return max(1, n.pace) }

// Bound is the wait for something on the guest whose bound at the reference pace is d: d times the guest's pace.
func (n *Node) Bound(d time.Duration) time.Duration { return time.Duration(float64(d) * n.Pace()) }
