// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// runscFlags is the runsc.toml our chart renders for configFlags {net-raw: "true"}; the field's extension wrote the
// same bytes for its net-raw capability.
const runscFlags = "[runsc_config]\n  net-raw = \"true\"\n"

// node is one disruption scenario's node: a host root, a real containerd daemon on its config.toml (started, or
// down when containerd refuses the config) and options whose restarter restarts that daemon.
type node struct {
	h *host
	d *installertest.Daemon
	r *installertest.Restarter
	o installer.Options
}

type step struct {
	name string
	run  func(t *testing.T, n *node) (installer.Result, error)
}

var (
	install = step{"install", func(_ *testing.T, n *node) (installer.Result, error) {
		return installer.Install(context.Background(), n.o)
	}}
	uninstall = step{"uninstall", func(_ *testing.T, n *node) (installer.Result, error) {
		return installer.Uninstall(context.Background(), n.o)
	}}
	flagChange = step{"install with other runsc flags", func(t *testing.T, n *node) (installer.Result, error) {
		writeFile(t, n.o.RunscConfig, []byte("[runsc_config]\n  debug = \"true\"\n  net-raw = \"true\"\n"))
		return installer.Install(context.Background(), n.o)
	}}
	upgrade = step{"install of the next release", func(t *testing.T, n *node) (installer.Result, error) {
		stubRelease(t, n.h.source, "v2")
		return installer.Install(context.Background(), n.o)
	}}
	// installNoRestart is a run that wrote containerd's config and died before restarting containerd.
	installNoRestart = step{"install, killed before the restart", func(_ *testing.T, n *node) (installer.Result, error) {
		o := n.o
		o.Restarter, o.Verifier = nil, nil
		return installer.Install(context.Background(), o)
	}}
	// binariesOnly is a run that copied some binaries and was killed while copying runsc (its temporary file stays
	// beside the target) before writing any config.
	binariesOnly = step{"binaries copied, killed before the config", func(t *testing.T, n *node) (installer.Result, error) {
		for _, f := range []string{"containerd-shim-runsc-v1", "gvisor-bin/runsc-metric-server"} {
			writeFile(t, n.h.path(binDir+"/"+f), mustReadT(t, filepath.Join(n.h.source, f)))
		}
		writeFile(t, n.h.path(binDir+"/.runsc.gvisor-installer-1234567"), []byte("half a runsc"))
		return installer.Result{}, nil
	}}
)

// disruptionCases is the table of BENCHMARKS.md "Node-side disruption" (testdata/node-disruption.md): which
// changes restart containerd on a node, each measured on a real containerd daemon.
var disruptionCases = []struct {
	name, release, config string
	// oldExtension: the node also has what the field's extension's script put there (runsc.toml, binaries).
	oldExtension bool
	setup        []step
	action       step
	restarts     int
	// before, if set, is what containerd serves over CRI before the setup: "runsc", "no runsc" or "down" (no CRI).
	before string
	// after is what containerd serves over CRI afterwards.
	after verify.Expect
	// original, if set, is the operator's config.toml that the node must have again after the action.
	original string
	// refused, if set, is part of the refusal the action must end with, the node byte for byte untouched.
	refused string
	why     string
}{
	{name: "first install", release: "1.7", config: "configs/gardener-v2.toml", action: install, restarts: 1, after: verify.Runsc,
		why: "runsc is registered in config.toml (containerd 1.x) or a conf.d drop-in (2.x); containerd reads either only at start"},
	{name: "first install, containerd 2.x (drop-in)", release: "2.4", config: "configs/default-2.4.toml", action: install, restarts: 1, after: verify.Runsc,
		why: "same, via /etc/containerd/conf.d/gvisor-runsc.toml; config.toml untouched"},
	{name: "re-run (pod restart, node reboot, chart change without effect)", release: "1.7", config: "configs/gardener-v2.toml", setup: []step{install}, action: install, restarts: 0, after: verify.Runsc,
		why: "nothing differs; a CRI check confirms runsc is in effect"},
	{name: "runsc flag change (configFlags)", release: "1.7", config: "configs/gardener-v2.toml", setup: []step{install}, action: flagChange, restarts: 0, after: verify.Runsc,
		why: "only runsc.toml changes; the runsc shim reads it at every sandbox start (running sandboxes keep their flags)"},
	{name: "binary upgrade (new gVisor release)", release: "1.7", config: "configs/gardener-v2.toml", setup: []step{install}, action: upgrade, restarts: 0, after: verify.Runsc,
		why: "runsc and the shim are replaced atomically; new sandboxes use them, running ones keep theirs"},
	{name: "uninstall (gVisor removed from the pool)", release: "1.7", config: "configs/gardener-v2.toml", setup: []step{install}, action: uninstall, restarts: 1, after: verify.NoRunsc, original: "configs/gardener-v2.toml",
		why: "containerd's configuration changes back (config.toml restored byte for byte)"},
	{name: "uninstall, containerd 2.x (drop-in)", release: "2.4", config: "configs/default-2.4.toml", setup: []step{install}, action: uninstall, restarts: 1, after: verify.NoRunsc, original: "configs/default-2.4.toml",
		why: "the drop-in goes"},
	{name: "uninstall again", release: "1.7", config: "configs/gardener-v2.toml", setup: []step{install, uninstall}, action: uninstall, restarts: 0, after: verify.NoRunsc, original: "configs/gardener-v2.toml",
		why: "nothing left to remove"},
	{name: "uninstall on a node that never had gVisor", release: "1.7", config: "configs/gardener-v2.toml", action: uninstall, restarts: 0, after: verify.NoRunsc, original: "configs/gardener-v2.toml",
		why: "nothing to remove; the uninstall pod is Ready at once"},
	{name: "uninstall on a half-installed node (binaries only)", release: "1.7", config: "configs/gardener-v2.toml", setup: []step{binariesOnly}, action: uninstall, restarts: 0, after: verify.NoRunsc, original: "configs/gardener-v2.toml",
		why: "binaries (and temporary files of the interrupted copy) go; containerd's configuration never changed"},
	{name: "install on a half-installed node (binaries only)", release: "1.7", config: "configs/gardener-v2.toml", setup: []step{binariesOnly}, action: install, restarts: 1, after: verify.Runsc,
		why: "the interrupted run is completed: its temporary file goes, runsc is registered"},
	{name: "uninstall on a half-installed node (config written, containerd not restarted)", release: "1.7", config: "configs/gardener-v2.toml", setup: []step{installNoRestart}, action: uninstall, restarts: 1, after: verify.NoRunsc, original: "configs/gardener-v2.toml",
		why: "config.toml changes back; restarted because the file changed, although runsc was never in effect"},
	{name: "takeover from the field's extension (its latest script, config version 2)", release: "1.7", config: "oldextension/latest-gardener-v2.toml", oldExtension: true, before: "runsc", action: install, restarts: 0, after: verify.Runsc,
		why: "its runsc table is exactly ours and is adopted as is; only binaries (and runsc.toml if flags differ) are replaced"},
	{name: "takeover from the field's extension on containerd 2.x (config version 3)", release: "2.4", config: "oldextension/latest-gardener-v3.toml", oldExtension: true, before: "no runsc", action: install, restarts: 1, after: verify.Runsc,
		why: "its tables sat under plugin IDs version 3 does not read (the node never had runsc): they go, the drop-in comes"},
	{name: "takeover from the field's extension on Debian's packaged config (no runc listed)", release: "1.7", config: "oldextension/latest-debian-1.6-packaged.toml", oldExtension: true, before: "down", action: install, restarts: 1, after: verify.Runsc,
		why: "runc was missing beside runsc (CRI down, so its version is read after the repair); runc is listed again"},
	{name: "wrong-plugin-key repair on containerd 2.x (`plugins.cri` in a version 2 file, silently ignored: no runsc)", release: "2.4", config: "oldextension/early-default-1.7.toml", oldExtension: true, before: "no runsc", action: install, restarts: 1, after: verify.Runsc,
		why: "the stale table is cut out and ours appended; runsc works from now on"},
	{name: "wrong-plugin-key repair on containerd 1.x (the same file: containerd does not start)", release: "1.7", config: "oldextension/early-default-1.7.toml", oldExtension: true, before: "down", action: install, restarts: 1, after: verify.Runsc,
		why: "same, and containerd starts again (its version is read once it answers); measured with the installer run on the host root directly: while containerd is down no pod (ours included) starts on the node, which machine-controller-manager normally replaces"},
	{name: "uninstall after a takeover", release: "1.7", config: "oldextension/latest-gardener-v2.toml", oldExtension: true, setup: []step{install}, action: uninstall, restarts: 1, after: verify.NoRunsc, original: "configs/gardener-v2.toml",
		why: "the adopted tables are cut out: config.toml is the operator's file from before the field's extension"},
	{name: "uninstall of the field's extension's state (never installed by us)", release: "1.7", config: "oldextension/latest-gardener-v2.toml", oldExtension: true, action: uninstall, restarts: 1, after: verify.NoRunsc, original: "configs/gardener-v2.toml",
		why: "same"},
	{name: "install on containerd 1.6 (Debian's 1.6.20)", release: "1.6", config: "configs/debian-1.6-packaged.toml", action: install, restarts: 0, refused: "containerd 1.6.20~ds1",
		why: "refused before anything on the node changes: containerd 1.6 cannot start the gVisor shim (its bootstrap reply); the fix is containerd 1.7 or later"},
	{name: "uninstall on containerd 1.6", release: "1.6", config: "oldextension/latest-debian-1.6-packaged.toml", oldExtension: true, before: "down", action: uninstall, restarts: 1, after: verify.NoRunsc, original: "configs/debian-1.6-packaged.toml",
		why: "removing gVisor works on any containerd: the field's extension's runsc goes (and its CRI comes back)"},
}

// TestNodeDisruption measures, per scenario, how often a real containerd daemon is restarted, checks the count the
// installer reports, and what containerd serves over CRI afterwards. The table in testdata/node-disruption.md (and
// BENCHMARKS.md) is generated from disruptionCases; UPDATE_SNAPSHOTS=1 rewrites it.
func TestNodeDisruption(t *testing.T) {
	for _, tc := range disruptionCases {
		t.Run(tc.name, func(t *testing.T) {
			c := installertest.Release(t, tc.release)
			h := newHost(t, relativeImports(readTestdata(t, tc.config)))
			n := &node{h: h}
			if tc.oldExtension {
				h.write(t, runscconfig.NodePath, []byte(runscFlags))
				h.write(t, binDir+"/runsc", installertest.StubELF(nativeMachine(), "old runsc"))
				h.write(t, binDir+"/containerd-shim-runsc-v1", installertest.StubELF(nativeMachine(), "old shim"))
			}
			n.d = installertest.NewDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
			if err := n.d.Start(context.Background()); err != nil {
				t.Logf("containerd is down on this node before the action: %v", err)
			}
			checkBefore(t, n.d, tc.before)
			n.r = &installertest.Restarter{D: n.d}
			n.o = h.options()
			n.o.Restarter, n.o.Verifier = n.r, verify.CRI{Socket: n.d.Socket}
			n.o.RunscConfig = filepath.Join(t.TempDir(), "runsc.toml")
			writeFile(t, n.o.RunscConfig, []byte(runscFlags))

			for _, s := range tc.setup {
				if res, err := s.run(t, n); err != nil {
					t.Fatalf("setup %s: %v (%s)\n%s", s.name, err, res.Summary(), h.logs)
				}
			}
			before, tree := n.r.Restarts, installertest.HashTree(t, h.root)
			res, err := tc.action.run(t, n)
			if tc.refused != "" {
				if !refusal.Is(err) || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("%s: want a refusal saying %q, got %v", tc.action.name, tc.refused, err)
				}
				if !reflect.DeepEqual(tree, installertest.HashTree(t, h.root)) {
					t.Errorf("%s: the refusal changed the node", tc.action.name)
				}
				if n.r.Restarts != before || res.Restarts != 0 {
					t.Errorf("%s: containerd restarted although the install was refused", tc.action.name)
				}
				t.Logf("%s: %v", res.FailedSummary(), err)
				return
			}
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.action.name, err, h.logs)
			}
			if got := n.r.Restarts - before; got != tc.restarts || res.Restarts != tc.restarts {
				t.Errorf("%s: containerd restarted %d times (installer says %d), want %d: %s", tc.action.name, got, res.Restarts, tc.restarts, res.Summary())
			}
			t.Logf("%s", res.Summary())
			if err := n.o.Verifier.Verify(context.Background(), tc.after); err != nil {
				t.Errorf("containerd afterwards: %v", err)
			}
			if tc.original != "" {
				if got, want := h.read(t, nodecontract.ContainerdConfigPath), relativeImports(readTestdata(t, tc.original)); !bytes.Equal(got, want) {
					t.Errorf("config.toml is not the operator's %s again:\n%s", tc.original, got)
				}
			}
			if tc.after == verify.NoRunsc {
				for _, p := range []string{nodecontract.DropInPath, runscconfig.NodePath, installer.BackupPath, binDir + "/runsc", binDir + "/containerd-shim-runsc-v1", binDir + "/gvisor-bin"} {
					if h.exists(p) {
						t.Errorf("%s left behind", p)
					}
				}
			}
			for p := range installertest.HashTree(t, h.root) {
				if strings.Contains(p, ".gvisor-installer-") {
					t.Errorf("temporary file %s left behind", p)
				}
			}
		})
	}
	checkDisruptionTable(t)
}

// checkDisruptionTable compares testdata/node-disruption.md with the table generated from disruptionCases.
func checkDisruptionTable(t *testing.T) {
	var b strings.Builder
	b.WriteString("| Change on a node | containerd restarts | Why |\n|---|---|---|\n")
	for _, tc := range disruptionCases {
		fmt.Fprintf(&b, "| %s | **%d** | %s |\n", tc.name, tc.restarts, tc.why)
	}
	golden := filepath.Join("testdata", "node-disruption.md")
	if os.Getenv("UPDATE_SNAPSHOTS") == "1" {
		writeFile(t, golden, []byte(b.String()))
	}
	want, err := os.ReadFile(golden)
	if err != nil || string(want) != b.String() {
		t.Errorf("%s is not the table of disruptionCases (run with UPDATE_SNAPSHOTS=1 and copy it into BENCHMARKS.md): %v\n%s", golden, err, b.String())
	}
}

// checkBefore checks the node's starting point, e.g. that the field's extension's state did (not) give the node runsc.
func checkBefore(t *testing.T, d *installertest.Daemon, before string) {
	t.Helper()
	ctx := context.Background()
	cri := verify.CRI{Socket: d.Socket}
	switch before {
	case "runsc":
		if err := cri.Verify(ctx, verify.Runsc); err != nil {
			t.Fatalf("before: want runsc in effect: %v", err)
		}
	case "no runsc":
		if err := cri.Verify(ctx, verify.NoRunsc); err != nil {
			t.Fatalf("before: want containerd up without runsc: %v", err)
		}
	case "down":
		if err := cri.Verify(ctx, verify.Up); err == nil {
			t.Fatalf("before: want containerd's CRI down")
		}
	}
}

func mustReadT(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
