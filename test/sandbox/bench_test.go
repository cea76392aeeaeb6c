// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// BenchmarkInstallProven measures, per supported containerd release, the time from the installer's start to "gVisor
// sandbox proven": installer.Install with the real release, the node's restarter, CRI verification and the
// installer's own sandbox proof, on a real node (BENCHMARKS.md, "Node installer").
//   - first: onto the release's default config (copy the release, register runsc, restart containerd, verify,
//     prove); a fresh node per iteration, started outside the timer (nodes are cleaned up when the run ends).
//   - rerun: the same installer again on an installed node (a pod restart or node reboot): nothing to write,
//     no restart, the proof still runs.
//
// Custom metrics: restarts/op (containerd restarts) and proof-ms/op (the sandbox start the proof timed).
func BenchmarkInstallProven(b *testing.B) {
	s := newSuite(b)
	for _, v := range supported {
		c := installertest.Release(b, v)
		b.Run(c.String()+"/first", func(b *testing.B) {
			var restarts int
			var proof time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				n := s.newNode(b, c, nodetest.Config{}, "[runsc_config]\n")
				b.StartTimer()
				res := benchInstall(b, n)
				b.StopTimer()
				restarts += res.Restarts
				proof += res.Sandbox.Started
			}
			b.ReportMetric(float64(restarts)/float64(b.N), "restarts/op")
			b.ReportMetric(float64(proof.Milliseconds())/float64(b.N), "proof-ms/op")
		})
		b.Run(c.String()+"/rerun", func(b *testing.B) {
			n := s.newNode(b, c, nodetest.Config{}, "[runsc_config]\n")
			benchInstall(b, n)
			var restarts int
			var proof time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := benchInstall(b, n)
				restarts += res.Restarts
				proof += res.Sandbox.Started
			}
			b.StopTimer()
			b.ReportMetric(float64(restarts)/float64(b.N), "restarts/op")
			b.ReportMetric(float64(proof.Milliseconds())/float64(b.N), "proof-ms/op")
		})
	}
}

func benchInstall(b *testing.B, n *node) installer.Result {
	b.Helper()
	res, err := installer.Install(context.Background(), n.o)
	if err != nil {
		b.Fatalf("install on %s: %v\n%s", n.C, err, n.logs)
	}
	if res.Sandbox == nil {
		b.Fatalf("install on %s reported no sandbox proof: %s", n.C, res.Summary())
	}
	return res
}
