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
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// FuzzAddRunsc: any input is either refused cleanly (a refusal error, no panic) or yields TOML that parses, has
// runsc exactly once under the right plugin ID and under no other, is stable under a second run, and loses nothing
// that was there; RemoveRunsc then leaves no runsc under any plugin ID.
// The seed corpus is every testdata config; `go test` runs the seeds, `go test -fuzz FuzzAddRunsc` explores.
func FuzzAddRunsc(f *testing.F) {
	for _, dir := range []string{"testdata/configs", "testdata/oldextension", "testdata/refused"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(nodecontract.ContainerdConfigPath, data)
		if err != nil {
			if !refusal.Is(err) {
				t.Fatalf("Parse returned a non-refusal error: %v", err)
			}
			return
		}
		// Uninstall straight from any state (ours, another installer's, the field's extension's): no runsc under any
		// plugin ID afterwards, and every other setting as it was.
		if direct, err := doc.RemoveRunsc(); err == nil {
			after, err := Parse(nodecontract.ContainerdConfigPath, direct.Content)
			if err != nil || after.HasAnyRunsc() {
				t.Fatalf("RemoveRunsc on the input: %v\n%q", err, direct.Content)
			}
			want := deepCopy(doc.Tree)
			for _, id := range criRuntimePluginIDs {
				removeRunscAt(want, id)
			}
			// (Our own block may also hold a runc we added; that goes too.)
			if !bytes.Contains(data, []byte(blockBegin)) && !sameSettings(direct.Content, want) {
				t.Fatalf("RemoveRunsc changed more than runsc:\n%q\n->\n%q", data, direct.Content)
			}
		}
		edit, err := doc.AddRunsc()
		if err != nil {
			// Only inputs go-toml cannot re-encode may fail; they must fail with an error, never a broken file.
			return
		}
		var tree map[string]any
		if err := toml.Unmarshal(edit.Content, &tree); err != nil {
			t.Fatalf("result does not parse: %v\n%q", err, edit.Content)
		}
		rt, err := lookupTable("result", tree, "plugins", doc.PluginID, "containerd", "runtimes", nodecontract.RuntimeName)
		if err != nil || rt == nil || rt["runtime_type"] != nodecontract.RuntimeType {
			t.Fatalf("runsc not registered: %v\n%q", err, edit.Content)
		}
		runscPath := []string{"plugins", doc.PluginID, "containerd", "runtimes", nodecontract.RuntimeName}
		if n := countHeaders(edit.Content, runscPath); n > 1 {
			t.Fatalf("runsc table header %d times:\n%q", n, edit.Content)
		}
		if edit.Mode == Appended && !strings.HasPrefix(string(edit.Content), string(data)) {
			t.Fatalf("appended edit changed the original bytes")
		}
		doc2, err := Parse(nodecontract.ContainerdConfigPath, edit.Content)
		if err != nil {
			t.Fatalf("edited file refused: %v", err)
		}
		if f := doc2.ForeignRunsc(); len(f) > 0 {
			t.Fatalf("runsc left under wrong plugin IDs %v:\n%q", f, edit.Content)
		}
		again, err := doc2.AddRunsc()
		if err != nil || again.Mode != Unchanged {
			t.Fatalf("second run not unchanged: %v %v", again.Mode, err)
		}
		removed, err := doc2.RemoveRunsc()
		if err != nil {
			t.Fatalf("RemoveRunsc: %v", err)
		}
		if doc3, err := Parse(nodecontract.ContainerdConfigPath, removed.Content); err != nil || doc3.HasAnyRunsc() {
			t.Fatalf("after RemoveRunsc: %v\n%q", err, removed.Content)
		}
	})
}

// countHeaders counts the [table] headers for path (comments and strings that merely contain the text do not count).
func countHeaders(data []byte, path []string) int {
	var p unstable.Parser
	p.Reset(data)
	n := 0
	for p.NextExpression() {
		if e := p.Expression(); e.Kind == unstable.Table && equal(keyOf(e.Key()), path) {
			n++
		}
	}
	return n
}
