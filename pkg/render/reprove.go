// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render

import (
	"fmt"
	"strings"
	"time"
)

// DefaultReproveInterval is the installation chart's reproveInterval: how often each node's idle container proves
// gVisor again (gvisor-idle reprove). Keep it equal to charts/internal/gvisor-installation/values.yaml (a test does).
const DefaultReproveInterval = 5 * time.Minute

// MinReproveInterval is the shortest interval the extension renders: each proof starts a real sandbox (about a
// second of containerd's and runsc's work), and a node is not meant to spend its time proving itself.
const MinReproveInterval = 10 * time.Second

// ValidateReproveInterval accepts whole-second intervals of at least MinReproveInterval: gvisor-idle parses whole
// seconds only (it imports nothing but syscall), and the chart's schema allows no more.
func ValidateReproveInterval(d time.Duration) error {
	if d < MinReproveInterval || d%time.Second != 0 {
		return fmt.Errorf("the re-proof interval must be whole seconds and at least %s, got %s", MinReproveInterval, d)
	}
	return nil
}

// formatInterval is d as the chart shows it: time.Duration's form without its zero tails (5m, not 5m0s; 1h, 1h30m).
func formatInterval(d time.Duration) string {
	s := d.String()
	if rest, ok := strings.CutSuffix(s, "m0s"); ok {
		s = rest + "m"
	}
	if rest, ok := strings.CutSuffix(s, "h0m"); ok {
		s = rest + "h"
	}
	return s
}
