// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"context"
	"testing"
	"time"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// BenchmarkNodeAgentApplyProven measures, per release, the OSC delivery mode on a fresh node from "node-agent
// applies the gVisor pool's OSC" to "gVisor sandbox proven" (to compare with test/sandbox's
// BenchmarkInstallProven, the DaemonSet installer's first run): node-agent's containerd step, the inline files,
// node-agent's extractor pulling the three imageRef files from the loopback registry (a cold pull: the node has
// no layer of the image yet), one containerd restart (node-agent restarts containerd.service), and the sandbox
// proof unit's command (gvisor-installer prove --activate: the staged release put in the release layout, then the
// sandbox proof). The node is started outside the timer.
//
// Custom metrics: restarts/op (containerd restarts), extract-ms/op (the imageRef files) and activate-ms/op (the proof
// unit's command, activation and proof).
func BenchmarkNodeAgentApplyProven(b *testing.B) {
	s := newSuite(b)
	for _, v := range sandboxReleases {
		c := installertest.Release(b, v)
		b.Run(c.String(), func(b *testing.B) {
			ctx := context.Background()
			var restarts int
			var extract, proof time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				n := nodetest.New(b, nodetest.Config{Containerd: c, Tools: s.tools, Images: s.images})
				writeHostsToml(b, n.HostRoot(), s.registry)
				starts := n.Starts()
				osc := s.gvisor.DeepCopy()
				b.StartTimer()
				if err := reconcileContainerd(b, c, n.HostRoot(), n.Socket(), osc); err != nil {
					b.Fatal(err)
				}
				writeInlineFiles(b, n.HostRoot(), osc.Spec.Files)
				t0 := time.Now()
				extractFiles(b, n.HostRoot(), n.Socket(), osc.Spec.Files)
				extract += time.Since(t0)
				if err := n.Restart(ctx); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if out, code := runExit(proveCommand(ctx, b, n, proofUnit(b, osc))); code != 0 {
					b.Fatalf("the proof unit (gvisor-installer prove --activate) on %s after node-agent applied the OSC: exit %d\n%s", c, code, out)
				}
				proof += time.Since(t1)
				b.StopTimer()
				restarts += n.Starts() - starts
			}
			b.ReportMetric(float64(restarts)/float64(b.N), "restarts/op")
			b.ReportMetric(float64(extract.Milliseconds())/float64(b.N), "extract-ms/op")
			b.ReportMetric(float64(proof.Milliseconds())/float64(b.N), "activate-ms/op")
		})
	}
}
