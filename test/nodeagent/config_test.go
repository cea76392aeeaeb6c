// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	gotoml "github.com/pelletier/go-toml/v2"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// supported are the containerd minor releases gVisor pods run on, with the config version their
// `containerd config default` writes (containerd-gvisor-facts.md).
var supported = []struct {
	minor         string
	configVersion int64
}{{"1.7", 2}, {"2.0", 3}, {"2.2", 3}, {"2.4", 4}}

// TestNodeAgentRegistersRunsc applies the gVisor pool's mutated OSC with node-agent's real containerd step on a
// node root without config.toml, as on a fresh node whose containerd runs on its built-in defaults, for every
// supported release: node-agent writes the release's own default (its config version) and adds runsc at the path
// it maps for that version; the release's `config dump` has runsc with our runtime type and options and still
// runc; containerd restarts on the file and lists runsc over CRI; a second reconcile of the same OSC leaves the
// file byte for byte. Then the OSC after gVisor left the pool (the remove op): node-agent takes runsc out, the dump
// has no runsc but runc, and containerd restarts on it without runsc.
func TestNodeAgentRegistersRunsc(t *testing.T) {
	gvisorOSC, removedOSC := mutatedOSCs(t, "", "") // the image is not pulled here
	for _, s := range supported {
		c := installertest.Release(t, s.minor)
		t.Run(c.String(), func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			// No config.toml yet: containerd runs on its built-in defaults (an empty file: containerd refuses a
			// missing --config) until node-agent writes one; every restart then reads node-agent's.
			boot := filepath.Join(t.TempDir(), "empty.toml")
			if err := os.WriteFile(boot, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			d := installertest.StartDaemon(t, c, boot, root)
			d.Config = filepath.Join(root, configFile)
			cri := verify.CRI{Socket: d.Socket}

			osc := gvisorOSC.DeepCopy()
			if err := reconcileContainerd(t, c, root, d.Socket, osc); err != nil {
				t.Fatalf("node-agent's ReconcileContainerdConfig of the gVisor OSC on %s: %v", c, err)
			}
			written := readFile(t, filepath.Join(root, configFile))
			if v := configVersion(t, written); v != s.configVersion {
				t.Errorf("node-agent's config.toml on %s has version %d, want %d (the release's `config default`)", c, v, s.configVersion)
			}
			assertContainerdDropIn(t, osc)
			tree := dumpInNode(t, c, root)
			runtimes := []string{"plugins", c.PluginID(), "containerd", "runtimes"}
			assertRunsc(t, c, tree, runtimes)
			lookup(t, tree, append(runtimes, "runc", "runtime_type")...)
			// The file, not the dump: 1.7's dump lists the files it read instead of the globs.
			if imports := importsOf(t, written); !slices.Contains(imports, "/etc/containerd/conf.d/*.toml") {
				t.Errorf("node-agent's config.toml imports = %v, want /etc/containerd/conf.d/*.toml", imports)
			}
			if err := d.Restart(ctx); err != nil {
				t.Fatalf("%s does not restart on node-agent's config: %v\n%s", c, err, d.LogTail(30))
			}
			if err := cri.Verify(ctx, verify.Runsc); err != nil {
				t.Errorf("CRI on %s after node-agent added runsc: %v", c, err)
			}

			if err := reconcileContainerd(t, c, root, d.Socket, gvisorOSC.DeepCopy()); err != nil {
				t.Fatalf("second reconcile of the same OSC: %v", err)
			}
			if again := readFile(t, filepath.Join(root, configFile)); !bytes.Equal(again, written) {
				t.Errorf("a second reconcile of the same OSC changed config.toml on %s:\nbefore:\n%s\nafter:\n%s", c, written, again)
			}

			if err := reconcileContainerd(t, c, root, d.Socket, removedOSC.DeepCopy()); err != nil {
				t.Fatalf("node-agent's ReconcileContainerdConfig of the OSC after gVisor left the pool: %v", err)
			}
			tree = dumpInNode(t, c, root)
			rts, _ := lookup(t, tree, runtimes...).(map[string]any)
			if _, ok := rts["runsc"]; ok {
				t.Errorf("config dump on %s still has runsc after the remove op: %v", c, rts["runsc"])
			}
			if _, ok := rts["runc"]; !ok {
				t.Errorf("config dump on %s lost runc with the remove op: %v", c, rts)
			}
			if err := d.Restart(ctx); err != nil {
				t.Fatalf("%s does not restart after the remove op: %v\n%s", c, err, d.LogTail(30))
			}
			if err := cri.Verify(ctx, verify.NoRunsc); err != nil {
				t.Errorf("CRI on %s after the remove op: %v", c, err)
			}
		})
	}
}

// assertRunsc checks the runsc runtime in a config dump: our runtime type, options type URL and runsc.toml path.
func assertRunsc(t testing.TB, c installertest.Containerd, tree map[string]any, runtimes []string) {
	t.Helper()
	runsc := append(slices.Clone(runtimes), "runsc")
	for _, want := range []struct {
		path  []string
		value string
	}{
		{append(slices.Clone(runsc), "runtime_type"), nodecontract.RuntimeType},
		{append(slices.Clone(runsc), "options", "TypeUrl"), nodecontract.OptionsTypeURL},
		{append(slices.Clone(runsc), "options", "ConfigPath"), runscconfig.NodePath},
	} {
		if got := lookup(t, tree, want.path...); got != want.value {
			t.Errorf("%s config dump %v = %v, want %q", c, want.path, got, want.value)
		}
	}
}

// assertContainerdDropIn checks that node-agent added its PATH drop-in (with the bin dir) to containerd.service in
// the OSC, which is how containerd finds the shim in the bin dir on a real node.
func assertContainerdDropIn(t testing.TB, osc *extensionsv1alpha1.OperatingSystemConfig) {
	t.Helper()
	for _, u := range osc.Spec.Units {
		if u.Name != v1beta1constants.OperatingSystemConfigUnitNameContainerDService {
			continue
		}
		for _, d := range u.DropIns {
			if bytes.Contains([]byte(d.Content), []byte("PATH="+extensionsv1alpha1.ContainerDRuntimeContainersBinFolder+":")) {
				return
			}
		}
	}
	t.Errorf("node-agent did not add its PATH drop-in with %s to containerd.service: %+v", extensionsv1alpha1.ContainerDRuntimeContainersBinFolder, osc.Spec.Units)
}

func configVersion(t testing.TB, config []byte) int64 { return rootKeys(t, config).Version }

func importsOf(t testing.TB, config []byte) []string { return rootKeys(t, config).Imports }

type roots struct {
	Version int64    `toml:"version"`
	Imports []string `toml:"imports"`
}

func rootKeys(t testing.TB, config []byte) roots {
	t.Helper()
	var v roots
	if err := gotoml.Unmarshal(config, &v); err != nil {
		t.Fatalf("node-agent's config.toml does not parse: %v\n%s", err, config)
	}
	return v
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
