// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"context"
	"path"
	"path/filepath"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/releases"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// BenchmarkReleaseChange measures, per supported containerd release, what a release change costs a node
// (BENCHMARKS.md, "Upgrade and rollback"), with a gVisor pod running throughout:
//   - switch: from a release change to "new release proven": copy the new release beside the old one, switch
//     current, prove; alternating between two real builds (every file differs).
//   - failed: a release whose runsc cannot start a sandbox over a working one: switch, failed proof, switch back,
//     proof of the old release; the failure's memory is cleared before each iteration so that each one tries.
//   - remembered: the next run with that failed release, refused from memory.
//
// Custom metric: restarts/op (containerd restarts; 0 for all three).
func BenchmarkReleaseChange(b *testing.B) {
	s := newSuite(b)
	rebuild := filepath.Join(b.TempDir(), "gvisor-rebuild")
	installertest.RealReleaseFrom(b, rebuild, realcomponents.GVisorRebuildDir(b))
	broken := filepath.Join(b.TempDir(), "gvisor-broken")
	installertest.BrokenRelease(b, broken)
	for _, v := range supported {
		c := installertest.Release(b, v)
		b.Run(c.String()+"/switch", func(b *testing.B) {
			n := benchNodeWithPod(b, s, c)
			sources := []string{rebuild, s.release}
			restarts := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				n.o.Source = sources[i%2]
				restarts += benchInstall(b, n).Restarts
			}
			b.StopTimer()
			b.ReportMetric(float64(restarts)/float64(b.N), "restarts/op")
		})
		b.Run(c.String()+"/failed", func(b *testing.B) {
			n := benchNodeWithPod(b, s, c)
			n.o.Source = broken
			before := n.r.Restarts
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				forgetFailures(b, n)
				b.StartTimer()
				if _, err := installer.Install(context.Background(), n.o); err == nil {
					b.Fatal("the broken release was accepted")
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(n.r.Restarts-before)/float64(b.N), "restarts/op")
		})
		b.Run(c.String()+"/remembered", func(b *testing.B) {
			n := benchNodeWithPod(b, s, c)
			n.o.Source = broken
			_, _ = installer.Install(context.Background(), n.o)
			before := n.r.Restarts
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := installer.Install(context.Background(), n.o); err == nil {
					b.Fatal("the broken release was accepted")
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(n.r.Restarts-before)/float64(b.N), "restarts/op")
		})
	}
}

// benchNodeWithPod is a node of release c with the release installed and a gVisor pod running.
func benchNodeWithPod(b *testing.B, s *suite, c installertest.Containerd) *node {
	b.Helper()
	n := s.newNode(b, c, nodetest.Config{}, "[runsc_config]\n")
	benchInstall(b, n)
	n.GVisorPod(b, false)
	return n
}

// forgetFailures clears the node's memory of failed releases, keeping what it proved.
func forgetFailures(b *testing.B, n *node) {
	b.Helper()
	file := n.HostPath(path.Join(n.BinDir(), nodecontract.StateFile))
	st, err := releases.LoadState(file)
	testutil.Must(b, err)
	st.Failed = nil
	testutil.Must(b, st.Save(file))
}
