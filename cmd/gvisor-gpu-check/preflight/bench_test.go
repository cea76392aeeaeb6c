// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package preflight_test

import (
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gvisor-gpu-check/preflight"
)

// BenchmarkJudge is the pre-flight's judgement of one driver with runsc's table (once per node and install): a
// supported driver, and an unknown one whose nearest supported version is looked up.
func BenchmarkJudge(b *testing.B) {
	for _, driver := range []string{"580.159.04", "570.211.01"} {
		b.Run(driver, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if v := preflight.Judge(driver, "v1"); v.Status == "" {
					b.Fatal("no verdict")
				}
			}
		})
	}
}
