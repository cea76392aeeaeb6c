// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// BenchmarkInstall measures the installer on a realistic node: the real static gVisor release (runsc and shim,
// ~113 MB), a Gardener-style containerd 2.4 config that imports conf.d, a real containerd 2.4 daemon restarted by
// the test restarter and verified over CRI. It reports containerd restarts per run for each scenario
// (restarts/op): first install 1, re-run 0, flag change 0, binary upgrade 0.
//
//	go test ./pkg/installer -run '^$' -bench Install -benchtime 5x
func BenchmarkInstall(b *testing.B) {
	c := installertest.Release(b, "2.4")
	config := relativeImports(readTestdata(b, "configs/gardener-v3.toml"))
	h := newHost(b, config)
	installertest.RealRelease(b, h.source)
	d := installertest.StartDaemon(b, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	r := &installertest.Restarter{D: d}
	o := h.options()
	o.Restarter, o.Verifier = r, verify.CRI{Socket: d.Socket}
	ctx := context.Background()

	run := func(b *testing.B, reset func(i int)) {
		b.Helper()
		restarts := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if reset != nil {
				b.StopTimer()
				reset(i)
				b.StartTimer()
			}
			res, err := installer.Install(ctx, o)
			if err != nil {
				b.Fatalf("install: %v\n%s", err, h.logs)
			}
			restarts += res.Restarts
		}
		b.StopTimer()
		b.ReportMetric(float64(restarts)/float64(b.N), "restarts/op")
	}
	uninstall := func() {
		for _, p := range []string{nodecontract.DropInPath, runscconfig.NodePath, binDir + "/runsc", binDir + "/containerd-shim-runsc-v1"} {
			if err := os.Remove(h.path(p)); err != nil && !os.IsNotExist(err) {
				b.Fatal(err)
			}
		}
	}

	b.Run("first-install", func(b *testing.B) { run(b, func(int) { uninstall() }) })
	b.Run("re-run", func(b *testing.B) { run(b, nil) })
	flagsFile := filepath.Join(b.TempDir(), "runsc.toml")
	o.RunscConfig = flagsFile
	b.Run("flag-change", func(b *testing.B) {
		run(b, func(i int) {
			writeFile(b, flagsFile, []byte("[runsc_config]\n  debug = \""+[]string{"true", "false"}[i%2]+"\"\n"))
		})
	})
	// An upgrade: the next release has a different runsc and shim (same ELF, other bytes).
	upgrade := filepath.Join(b.TempDir(), "next")
	installertest.RealRelease(b, upgrade)
	for _, f := range []string{"runsc", "containerd-shim-runsc-v1"} {
		appendFile(b, filepath.Join(upgrade, f), "next release")
	}
	installertest.WriteRelease(b, upgrade, map[string][]byte{"runsc": mustRead(b, filepath.Join(upgrade, "runsc")), "containerd-shim-runsc-v1": mustRead(b, filepath.Join(upgrade, "containerd-shim-runsc-v1"))})
	current := h.source
	b.Run("binary-upgrade", func(b *testing.B) {
		run(b, func(i int) { o.Source = []string{upgrade, current}[i%2] })
	})
	if err := o.Verifier.Verify(ctx, verify.Runsc); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPlanWarm is the installer's own cost of deciding that nothing is to do (release verification of the
// real ~113 MB release dominates), without containerd.
func BenchmarkPlanWarm(b *testing.B) {
	h := newHost(b, readTestdata(b, "configs/default-1.7.toml"))
	installertest.RealRelease(b, h.source)
	if _, err := installer.Install(context.Background(), h.options()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := planInstall(h.options())
		if err != nil || len(p.Changes) != 0 {
			b.Fatalf("plan: %v %v", p, err)
		}
	}
}

func mustRead(b *testing.B, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkUninstall measures `uninstall` on the realistic node of BenchmarkInstall (real release, Gardener-style
// config version 3, real containerd 2.4 restarted by the test restarter and checked over CRI): "installed" removes
// the drop-in, runsc.toml and the ~113 MB of binaries and restarts containerd; "nothing-to-do" is what the uninstall
// DaemonSet costs on a node that is already clean (one CRI check).
//
//	go test ./pkg/installer -run '^$' -bench Uninstall -benchtime 5x
func BenchmarkUninstall(b *testing.B) {
	c := installertest.Release(b, "2.4")
	h := newHost(b, relativeImports(readTestdata(b, "configs/gardener-v3.toml")))
	installertest.RealRelease(b, h.source)
	d := installertest.StartDaemon(b, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	o := h.options()
	o.Restarter, o.Verifier = &installertest.Restarter{D: d}, verify.CRI{Socket: d.Socket}
	ctx := context.Background()
	run := func(b *testing.B, installFirst bool) {
		restarts := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if installFirst {
				b.StopTimer()
				if _, err := installer.Install(ctx, o); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			res, err := installer.Uninstall(ctx, o)
			if err != nil {
				b.Fatalf("uninstall: %v\n%s", err, h.logs)
			}
			restarts += res.Restarts
		}
		b.StopTimer()
		b.ReportMetric(float64(restarts)/float64(b.N), "restarts/op")
	}
	b.Run("installed", func(b *testing.B) { run(b, true) })
	b.Run("nothing-to-do", func(b *testing.B) { run(b, false) })
}
