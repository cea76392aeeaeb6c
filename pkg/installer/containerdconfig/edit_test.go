// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/runscconfig"
)

// editCases says, per testdata config, how AddRunsc must change it. Files not listed here fail the test, so a new
// testdata file cannot go untested.
var editCases = map[string]struct {
	version   int64
	mode      Mode
	addedRunc bool
	dropIn    bool // the config imports conf.d/*.toml at version >= 3: the installer writes DropIn instead
}{
	"default-1.6.toml":             {version: 2, mode: Appended},
	"default-1.7.toml":             {version: 2, mode: Appended},
	"default-2.0.toml":             {version: 3, mode: Appended},
	"default-2.2.toml":             {version: 3, mode: Appended, dropIn: true},
	"default-2.4.toml":             {version: 4, mode: Appended, dropIn: true},
	"debian-1.6-packaged.toml":     {version: 2, mode: Appended, addedRunc: true},
	"gardener-v2.toml":             {version: 2, mode: Appended},
	"gardener-v3.toml":             {version: 3, mode: Appended, dropIn: true},
	"v1.toml":                      {version: 1, mode: Appended, addedRunc: true},
	"runsc-partial-v2.toml":        {version: 2, mode: Appended},
	"runsc-other-config-v2.toml":   {version: 2, mode: Repaired},
	"runsc-complete-v3.toml":       {version: 3, mode: Unchanged},
	"nvidia-default-v2.toml":       {version: 2, mode: Appended},
	"registry-v4.toml":             {version: 4, mode: Appended},
	"inline-v2.toml":               {version: 2, mode: Rewritten},
	"dotted-v3.toml":               {version: 3, mode: Rewritten},
	"crlf-v2.toml":                 {version: 2, mode: Appended},
	"crlf-inline-v2.toml":          {version: 2, mode: Rewritten},
	"version-late-nospace-v2.toml": {version: 2, mode: Appended},
	"no-final-newline-v2.toml":     {version: 2, mode: Appended},
}

func TestAddAndRemoveRunsc(t *testing.T) {
	files, err := filepath.Glob("testdata/configs/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata configs: %v", err)
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			want, ok := editCases[name]
			if !ok {
				t.Fatalf("testdata config %s has no expectation in editCases", name)
			}
			data := readFile(t, file)
			doc, err := Parse(nodecontract.ContainerdConfigPath, data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if doc.Version != want.version {
				t.Errorf("Version = %d, want %d", doc.Version, want.version)
			}
			if got := doc.UsesDropIn(); got != want.dropIn {
				t.Errorf("UsesDropIn = %v, want %v", got, want.dropIn)
			}
			edit, err := doc.AddRunsc()
			if err != nil {
				t.Fatalf("AddRunsc: %v", err)
			}
			if edit.Mode != want.mode || edit.AddedRunc != want.addedRunc {
				t.Fatalf("AddRunsc: mode %s addedRunc %v, want %s %v\n%s", edit.Mode, edit.AddedRunc, want.mode, want.addedRunc, edit.Content)
			}
			assertRunscOnce(t, edit.Content, doc.PluginID)
			switch edit.Mode {
			case Appended:
				if !bytes.HasPrefix(edit.Content, data) {
					t.Errorf("appended edit does not keep the original bytes as prefix")
				}
			case Rewritten:
				if !strings.HasPrefix(string(edit.Content), "# Rewritten by gvisor-installer") {
					t.Errorf("rewritten file lacks the header comment")
				}
			}
			if doc.CRLF && bytes.Contains(bytes.ReplaceAll(edit.Content, []byte("\r\n"), nil), []byte("\n")) {
				t.Errorf("CRLF file got LF-only lines:\n%q", edit.Content)
			}

			// Idempotent: a second run changes nothing.
			doc2, err := Parse(nodecontract.ContainerdConfigPath, edit.Content)
			if err != nil {
				t.Fatalf("Parse(edited): %v", err)
			}
			again, err := doc2.AddRunsc()
			if err != nil || again.Mode != Unchanged || !bytes.Equal(again.Content, edit.Content) {
				t.Fatalf("second AddRunsc: mode %s err %v", again.Mode, err)
			}

			// Uninstall: an appended block is cut out byte for byte (a missing final newline, which the block
			// needed, stays added; the installer restores such files from its backup).
			removed, err := doc2.RemoveRunsc()
			if err != nil {
				t.Fatalf("RemoveRunsc: %v", err)
			}
			restored := bytes.Equal(removed.Content, data) || (!bytes.HasSuffix(data, []byte("\n")) && bytes.Equal(removed.Content, append(data, '\n')))
			if want.mode == Appended && doc.Runsc() == nil && !restored {
				t.Errorf("RemoveRunsc did not restore the original bytes:\n%s", removed.Content)
			}
			doc3, err := Parse(nodecontract.ContainerdConfigPath, removed.Content)
			if err != nil {
				t.Fatalf("Parse(removed): %v", err)
			}
			if doc3.Runsc() != nil {
				t.Errorf("runsc still present after RemoveRunsc:\n%s", removed.Content)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	cases := map[string]string{
		"malformed.toml":          "not valid TOML",
		"unknown-version.toml":    "config version not supported",
		"version-string.toml":     "not an integer",
		"cri-disabled.toml":       "CRI plugin is disabled",
		"cri-disabled-v1.toml":    "CRI plugin is disabled",
		"runtimes-not-table.toml": "not a table",
	}
	files, _ := filepath.Glob("testdata/refused/*.toml")
	if len(files) != len(cases) {
		t.Fatalf("testdata/refused has %d files, cases %d: keep them in step", len(files), len(cases))
	}
	for name, reason := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(nodecontract.ContainerdConfigPath, readFile(t, filepath.Join("testdata/refused", name)))
			if !refusal.Is(err) {
				t.Fatalf("Parse: %v, want a refusal", err)
			}
			if msg := err.Error(); !strings.Contains(msg, reason) || !strings.Contains(msg, nodecontract.ContainerdConfigPath) || !strings.Contains(msg, "fix:") {
				t.Errorf("refusal %q should name the file, say %q and give a fix", msg, reason)
			}
		})
	}
}

func TestDropIn(t *testing.T) {
	got, err := DropIn(3)
	if err != nil {
		t.Fatal(err)
	}
	want := `# Written by gvisor-installer: registers the gVisor runtime (runsc) with containerd's CRI plugin.
# containerd merges this file into config.toml through its ` + "`imports`; `gvisor-installer uninstall`" + ` removes it.
version = 3

[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runsc]
  runtime_type = "io.containerd.runsc.v1"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runsc.options]
  ConfigPath = "/etc/containerd/runsc.toml"
  TypeUrl = "io.containerd.runsc.v1.options"
`
	if string(got) != want {
		t.Errorf("DropIn(3) =\n%s\nwant\n%s", got, want)
	}
	if _, err := DropIn(2); err == nil {
		t.Errorf("DropIn(2) must fail: containerd 1.x replaces whole plugin tables from imports")
	}
}

func TestImportsDropIn(t *testing.T) {
	for _, tc := range []struct {
		imports []string
		want    bool
	}{
		{[]string{"/etc/containerd/conf.d/*.toml"}, true},
		{[]string{"conf.d/*.toml"}, true}, // relative to the importing file
		{[]string{"/etc/containerd/conf.d/gvisor-runsc.toml"}, true},
		{[]string{"/etc/containerd/other.d/*.toml"}, false},
		{nil, false},
	} {
		d := &Document{Imports: tc.imports}
		if got := d.ImportsDropIn(); got != tc.want {
			t.Errorf("ImportsDropIn(%v) = %v, want %v", tc.imports, got, tc.want)
		}
	}
}

func assertRunscOnce(t *testing.T, content []byte, pluginID string) {
	t.Helper()
	var tree map[string]any
	if err := toml.Unmarshal(content, &tree); err != nil {
		t.Fatalf("result does not parse: %v\n%s", err, content)
	}
	rt, err := lookupTable("result", tree, "plugins", pluginID, "containerd", "runtimes", nodecontract.RuntimeName)
	if err != nil || rt == nil {
		t.Fatalf("no runsc under plugins.%q: %v\n%s", pluginID, err, content)
	}
	opts, _ := rt["options"].(map[string]any)
	if rt["runtime_type"] != nodecontract.RuntimeType || opts["TypeUrl"] != nodecontract.OptionsTypeURL || opts["ConfigPath"] != runscconfig.NodePath {
		t.Errorf("runsc table = %v", rt)
	}
	if n := countHeaders(content, []string{"plugins", pluginID, "containerd", "runtimes", nodecontract.RuntimeName}); n > 1 {
		t.Errorf("runsc header appears %d times", n)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
