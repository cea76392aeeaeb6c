// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"runtime/debug"
	"testing"
)

// TestTuneGC: the binary's GC target is ours unless GOGC is set, which then stays the operator's.
func TestTuneGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(prev) })
	tuneGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != defaultGCPercent {
		t.Errorf("GC percent %d without GOGC, want %d", got, defaultGCPercent)
	}
	tuneGC(func(k string) string {
		if k == "GOGC" {
			return "200"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent changed to %d although GOGC is set", got)
	}
}
