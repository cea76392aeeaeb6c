// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"runtime/debug"
)

// defaultGCPercent is the garbage collector's target for the controller binary: the heap may grow 50 % over what
// is live between collections instead of Go's default 100 %. The controller's live heap is small (half of it API
// schemes) and what it allocates is short-lived (rendering, decoding), so the default target mostly holds garbage: at seed scale 50 costs no more CPU than 100 and a little less peak RSS (BENCHMARKS.md,
// "Seed scale: 150 and 500 pools").
const defaultGCPercent = 50

// tuneGC sets defaultGCPercent unless the operator chose a target with GOGC (the Go runtime has applied it
// already). Process-wide, so only the binary's Main calls it, like the process loggers.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
}
