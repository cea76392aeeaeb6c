// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// oldExtensionCases: each testdata/oldextension file is an operator's config (testdata/configs/<original>) plus
// exactly what a version of the field's extension's install script appended to it (see the README there).
// Files not listed here fail the test.
var oldExtensionCases = map[string]struct {
	original  string
	mode      Mode
	removed   []string
	addedRunc bool
}{
	// The latest script on a version 2 file: already what we register; adopted as is.
	"latest-gardener-v2.toml": {original: "gardener-v2.toml", mode: Unchanged},
	// The latest script on Debian's packaged config: runsc listed, runc not; containerd 1.x lost runc.
	"latest-debian-1.6-packaged.toml": {original: "debian-1.6-packaged.toml", mode: Appended, addedRunc: true},
	// The early script's field bug: `plugins.cri` in a version 2 file; containerd 1.x does not start.
	"early-default-1.6.toml": {original: "default-1.6.toml", mode: Repaired, removed: []string{"cri"}},
	"early-default-1.7.toml": {original: "default-1.7.toml", mode: Repaired, removed: []string{"cri"}},
	// The latest script on a version 1 file: its options went under the version 2 plugin ID and never applied.
	"latest-v1.toml": {original: "v1.toml", mode: Repaired, removed: []string{"io.containerd.grpc.v1.cri"}, addedRunc: true},
	// The latest script on a version 3 file (containerd 2.x): neither table was ever in effect.
	"latest-gardener-v3.toml": {original: "gardener-v3.toml", mode: Repaired, removed: []string{"cri", "io.containerd.grpc.v1.cri"}},
}

// TestOldExtensionStates: our editor adopts what the field's extension left (no second registration), removes its
// tables under wrong plugin IDs, and uninstall gives back the operator's original file byte for byte.
func TestOldExtensionStates(t *testing.T) {
	files, _ := filepath.Glob("testdata/oldextension/*.toml")
	if len(files) != len(oldExtensionCases) {
		t.Fatalf("testdata/oldextension has %d files, oldExtensionCases %d: keep them in step", len(files), len(oldExtensionCases))
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			want, ok := oldExtensionCases[name]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			original := readFile(t, filepath.Join("testdata/configs", want.original))
			doc, err := Parse(nodecontract.ContainerdConfigPath, readFile(t, file))
			if err != nil {
				t.Fatal(err)
			}
			if !doc.HasAnyRunsc() {
				t.Fatalf("HasAnyRunsc = false on a config of the field's extension")
			}
			edit, err := doc.AddRunsc()
			if err != nil {
				t.Fatal(err)
			}
			if edit.Mode != want.mode || edit.AddedRunc != want.addedRunc || !reflect.DeepEqual(edit.RemovedForeign, want.removed) {
				t.Fatalf("AddRunsc: mode %s addedRunc %v removed %v, want %s %v %v\n%s", edit.Mode, edit.AddedRunc, edit.RemovedForeign, want.mode, want.addedRunc, want.removed, edit.Content)
			}
			assertRunscOnce(t, edit.Content, doc.PluginID)
			installed, err := Parse(nodecontract.ContainerdConfigPath, edit.Content)
			if err != nil {
				t.Fatal(err)
			}
			if f := installed.ForeignRunsc(); len(f) > 0 {
				t.Errorf("runsc still under foreign plugin IDs %v:\n%s", f, edit.Content)
			}
			if again, err := installed.AddRunsc(); err != nil || again.Mode != Unchanged {
				t.Errorf("second AddRunsc: %s %v", again.Mode, err)
			}
			// Where our drop-in is used (version 3 with conf.d), only the stale tables go from config.toml.
			if doc.UsesDropIn() {
				fix, err := doc.RemoveForeignRunsc()
				if err != nil || !bytes.Equal(fix.Content, original) || fix.Mode != Cut {
					t.Errorf("RemoveForeignRunsc: %s %v, want the original back:\n%s", fix.Mode, err, fix.Content)
				}
			}
			removed, err := installed.RemoveRunsc()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(removed.Content, original) {
				t.Errorf("RemoveRunsc (%s) did not give back %s:\n%s", removed.Mode, want.original, removed.Content)
			}
			// Uninstall straight from the field's extension's state (it never ran our install) gives it back too.
			if direct, err := doc.RemoveRunsc(); err != nil || !bytes.Equal(direct.Content, original) || direct.Mode != Cut {
				t.Errorf("RemoveRunsc on the old state: %s %v:\n%s", direct.Mode, err, direct.Content)
			}
		})
	}
}
