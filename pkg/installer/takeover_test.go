// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	cc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// oldExtensionOriginals maps each node state the field's extension left (containerdconfig/testdata/oldextension, see
// its README) to the operator's config before the field's extension touched it.
var oldExtensionOriginals = map[string]string{
	"early-default-1.6.toml":          "default-1.6.toml",
	"early-default-1.7.toml":          "default-1.7.toml",
	"latest-debian-1.6-packaged.toml": "debian-1.6-packaged.toml",
	"latest-gardener-v2.toml":         "gardener-v2.toml",
	"latest-gardener-v3.toml":         "gardener-v3.toml",
	"latest-v1.toml":                  "v1.toml",
}

// TestTakeoverFromOldExtension installs onto every node state the field's extension left, with its runsc.toml and
// binaries in place, and checks with every real containerd that reads the config version: the field bug is real
// before (containerd 1.x refuses `plugins.cri` in a version 2 file), and afterwards `config dump` succeeds with
// runsc exactly once, under the right plugin ID, with our options, and runc beside it. A second install is
// unchanged; uninstall gives back the operator's original config.toml byte for byte and leaves nothing of gVisor.
func TestTakeoverFromOldExtension(t *testing.T) {
	releases := installertest.Containerds(t)
	files, _ := filepath.Glob("containerdconfig/testdata/oldextension/*.toml")
	if len(files) != len(oldExtensionOriginals) {
		t.Fatalf("%d states of the field's extension, %d originals: keep them in step", len(files), len(oldExtensionOriginals))
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			oldState := readTestdata(t, "oldextension/"+name)
			original := readTestdata(t, "configs/"+oldExtensionOriginals[name])
			h := newHost(t, original)
			clean := installertest.HashTree(t, h.root)
			h.write(t, nodecontract.ContainerdConfigPath, oldState)
			h.write(t, runscconfig.NodePath, []byte(runscFlags))
			h.write(t, binDir+"/runsc", installertest.StubELF(nativeMachine(), "old runsc"))
			h.write(t, binDir+"/containerd-shim-runsc-v1", installertest.StubELF(nativeMachine(), "old shim"))
			doc, err := cc.Parse(nodecontract.ContainerdConfigPath, oldState)
			if err != nil {
				t.Fatal(err)
			}
			wrongKey := doc.Version == 2 && slices.Contains(doc.ForeignRunsc(), "cri")

			o := h.options()
			o.RunscConfig = filepath.Join(t.TempDir(), "runsc.toml")
			writeFile(t, o.RunscConfig, []byte(runscFlags))
			res, err := installer.Install(context.Background(), o)
			if err != nil {
				t.Fatalf("install: %v\n%s", err, h.logs)
			}
			t.Logf("%s", res.Summary())

			checked := 0
			for _, c := range releases {
				if !c.Accepts(doc.Version) {
					continue
				}
				checked++
				t.Run(c.String(), func(t *testing.T) {
					_, stderr, err := c.DumpErr(t, dumpable(t, h, oldState))
					if wrongKey && c.Major == 1 && (err == nil || !strings.Contains(stderr, `invalid plugin key URI "cri"`)) {
						t.Errorf("the field bug should reproduce before the takeover: %v %s", err, stderr)
					}
					dump, stderr := c.Dump(t, dumpable(t, h, h.read(t, nodecontract.ContainerdConfigPath)))
					if strings.Contains(stderr, "invalid plugin key") {
						t.Errorf("%s complains about a plugin key:\n%s", c, stderr)
					}
					assertRunsc(t, dump, c.PluginID())
					if rt, err := installertest.Lookup(dump, "plugins", c.PluginID(), "containerd", "runtimes", "runc", "runtime_type"); err != nil || rt != "io.containerd.runc.v2" {
						t.Errorf("runc missing after the takeover: %v %v", rt, err)
					}
					plugins, _ := dump["plugins"].(map[string]any)
					for id := range plugins {
						if id == c.PluginID() {
							continue
						}
						if rt, err := installertest.Lookup(dump, "plugins", id, "containerd", "runtimes", "runsc"); err == nil {
							t.Errorf("runsc still under plugin %q: %v", id, rt)
						}
					}
				})
			}
			if checked == 0 {
				t.Fatalf("no containerd release reads config version %d", doc.Version)
			}

			if res, err := installer.Install(context.Background(), o); err != nil || len(res.Changed) != 0 {
				t.Errorf("second install must be unchanged: %s, %v", res.Summary(), err)
			}
			if _, err := installer.Uninstall(context.Background(), o); err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			if got := h.read(t, nodecontract.ContainerdConfigPath); !bytes.Equal(got, original) {
				t.Errorf("config.toml after uninstall is not the operator's original:\n%s", got)
			}
			if after := installertest.HashTree(t, h.root); !reflect.DeepEqual(clean, after) {
				t.Errorf("uninstall left more than the operator's node:\nclean %v\nafter %v", clean, after)
			}
		})
	}
}
