// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	cc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/containerdconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestInstallConfigMatrix installs onto every testdata config and checks the result with every real containerd
// that reads that config version: `config dump` succeeds, has runsc under the plugin ID of that release with our
// options, and every other setting (runc included) is exactly what the same containerd made of the original file.
// A second install reports unchanged; uninstall restores the node byte for byte.
//
// Debian's containerd 1.6 stays in this matrix although install refuses it on a real node
// (TestInstallRefusesContainerd16): the matrix judges the installer's TOML edits with every release's own config
// reader (1.7 reads version 1 and 2 files as 1.6 does), not whether gVisor runs there; it runs no daemon and
// therefore no version check.
func TestInstallConfigMatrix(t *testing.T) {
	releases := installertest.Containerds(t)
	files, err := filepath.Glob("containerdconfig/testdata/configs/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata configs: %v", err)
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			original := readTestdata(t, "configs/"+name)
			h := newHost(t, original)
			before := installertest.HashTree(t, h.root)
			doc, err := cc.Parse(nodecontract.ContainerdConfigPath, original)
			if err != nil {
				t.Fatal(err)
			}

			res, err := installer.Install(context.Background(), h.options())
			if err != nil {
				t.Fatalf("install: %v\n%s", err, h.logs)
			}
			if res.Restarts != 0 || len(res.Changed) == 0 {
				t.Fatalf("first install: %s", res.Summary())
			}
			if doc.UsesDropIn() && !bytes.Equal(h.read(t, nodecontract.ContainerdConfigPath), original) {
				t.Errorf("config.toml changed although the drop-in was used")
			}

			checked := 0
			for _, c := range releases {
				if !c.Accepts(doc.Version) {
					continue
				}
				checked++
				t.Run(c.String(), func(t *testing.T) {
					wantDump, _ := c.Dump(t, dumpable(t, h, original))
					gotDump, stderr := c.Dump(t, dumpable(t, h, h.read(t, nodecontract.ContainerdConfigPath)))
					if strings.Contains(stderr, "invalid plugin key") {
						t.Errorf("%s complains about a plugin key:\n%s", c, stderr)
					}
					assertRunsc(t, gotDump, c.PluginID())
					runtimesPath := []string{"plugins", c.PluginID(), "containerd", "runtimes"}
					if rt, err := installertest.Lookup(wantDump, append(runtimesPath, "runc", "runtime_type")...); err != nil || rt != "io.containerd.runc.v2" {
						t.Logf("note: the original config has no runc under %s (%v)", c, err)
					} else if rt, err := installertest.Lookup(gotDump, append(runtimesPath, "runc", "runtime_type")...); err != nil || rt != "io.containerd.runc.v2" {
						t.Errorf("runc lost after install: %v %v", rt, err)
					}
					for _, d := range []map[string]any{wantDump, gotDump} {
						if rt, err := installertest.Lookup(d, runtimesPath...); err == nil {
							delete(rt.(map[string]any), "runsc")
						}
						dropZeroRuncOptions(d, runtimesPath)
						delete(d, "imports") // lists the files actually read, our drop-in among them
					}
					if !reflect.DeepEqual(wantDump, gotDump) {
						w, _ := toml.Marshal(wantDump)
						g, _ := toml.Marshal(gotDump)
						t.Errorf("effective config differs beyond runsc:\n%s", lineDiff(string(w), string(g)))
					}
				})
			}
			if checked == 0 {
				t.Fatalf("no containerd release reads config version %d", doc.Version)
			}

			res, err = installer.Install(context.Background(), h.options())
			if err != nil || len(res.Changed) != 0 || res.Restarts != 0 || !strings.Contains(res.Summary(), "unchanged") {
				t.Fatalf("second install must be unchanged: %s, %v", res.Summary(), err)
			}

			res, err = installer.Uninstall(context.Background(), h.options())
			if err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			if doc.Runsc() != nil {
				// runsc was registered before we came (and adopted): uninstall removes the registration, the
				// rest of the file stays.
				after, err := cc.Parse(nodecontract.ContainerdConfigPath, h.read(t, nodecontract.ContainerdConfigPath))
				if err != nil || after.Runsc() != nil {
					t.Errorf("uninstall left runsc or broke the file (%v):\n%s", err, h.read(t, nodecontract.ContainerdConfigPath))
				}
				h.write(t, nodecontract.ContainerdConfigPath, original)
			}
			after := installertest.HashTree(t, h.root)
			if !reflect.DeepEqual(before, after) {
				t.Errorf("uninstall did not restore the node (%s):\nbefore %v\nafter  %v", res.Summary(), before, after)
			}
		})
	}
}

// dumpable writes config for `config dump`: absolute conf.d imports point into the host root.
func dumpable(t *testing.T, h *host, config []byte) string {
	t.Helper()
	config = bytes.ReplaceAll(config, []byte("/etc/containerd/conf.d/"), []byte(h.path("/etc/containerd/conf.d")+"/"))
	f := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(f, config, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func assertRunsc(t *testing.T, dump map[string]any, pluginID string) {
	t.Helper()
	p := []string{"plugins", pluginID, "containerd", "runtimes", "runsc"}
	for key, want := range map[string]string{"runtime_type": nodecontract.RuntimeType, "options/TypeUrl": nodecontract.OptionsTypeURL, "options/ConfigPath": runscconfig.NodePath} {
		got, err := installertest.Lookup(dump, append(p, strings.Split(key, "/")...)...)
		if err != nil || got != want {
			t.Errorf("effective runsc %s = %v (%v), want %q", key, got, err, want)
		}
	}
}

// dropZeroRuncOptions removes zero-valued runc options from a dump. Listing runc explicitly in a version 1/2 file
// (needed on 1.x, see containerdconfig) copies containerd 1.7's default runc options; 2.x's defaults lack
// NoPivotRoot and CriuPath, so 2.x dumps them as false/"": the same runc behaviour (absent = zero in the shim's
// options), different keys.
func dropZeroRuncOptions(dump map[string]any, runtimesPath []string) {
	opts, err := installertest.Lookup(dump, append(runtimesPath, "runc", "options")...)
	if err != nil {
		return
	}
	m, _ := opts.(map[string]any)
	for k, v := range m {
		if v == false || v == "" || v == int64(0) {
			delete(m, k)
		}
	}
}

// lineDiff lists the lines only in a or only in b (enough to read a config difference).
func lineDiff(a, b string) string {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(b, "\n") {
		count[l]--
	}
	var out []string
	for l, n := range count {
		if n > 0 {
			out = append(out, "- "+l)
		} else if n < 0 {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}

// TestBenignImportOn1x: a version-2 config whose conf.d drop-in configures another plugin is edited in place
// (only an imported CRI table would be refused), and containerd 1.7 sees runsc plus the drop-in's setting.
func TestBenignImportOn1x(t *testing.T) {
	c := installertest.Release(t, "1.7")
	h := newHost(t, readTestdata(t, "configs/gardener-v2.toml"))
	h.write(t, "/etc/containerd/conf.d/tracing.toml", []byte("version = 2\n[plugins.\"io.containerd.internal.v1.tracing\"]\n  sampling_ratio = 0.5\n"))
	if _, err := installer.Install(context.Background(), h.options()); err != nil {
		t.Fatal(err)
	}
	dump, _ := c.Dump(t, dumpable(t, h, h.read(t, nodecontract.ContainerdConfigPath)))
	assertRunsc(t, dump, c.PluginID())
	if got, err := installertest.Lookup(dump, "plugins", "io.containerd.internal.v1.tracing", "sampling_ratio"); err != nil || got != 0.5 {
		t.Errorf("drop-in setting lost: %v %v", got, err)
	}
}
