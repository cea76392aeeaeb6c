// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts

import (
	"bytes"
	"os"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// schemaCopies maps each chart's values.schema.json to the one file it is a copy of. One source of truth per
// schema, but real files in the charts: a symbolic link makes every `helm lint/template/install` from a checkout
// print "found symbolic link in path ... Contents of linked file included and used", and breaks tools that do
// not follow links. `make snapshots` (UPDATE_SNAPSHOTS=1) rewrites the copies.
var schemaCopies = map[string]string{
	// The operator-facing schema lives at the repository root (the design's top level).
	"gardener-extension-runtime-gvisor/values.schema.json": "../values.schema.json",
	// gardener-operator passes the same values to both admission charts, so both use the umbrella chart's schema.
	"gardener-extension-admission-runtime-gvisor/charts/runtime/values.schema.json":     "gardener-extension-admission-runtime-gvisor/values.schema.json",
	"gardener-extension-admission-runtime-gvisor/charts/application/values.schema.json": "gardener-extension-admission-runtime-gvisor/values.schema.json",
}

func TestSchemaCopiesAreCurrent(t *testing.T) {
	for cp, src := range schemaCopies {
		want, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if testutil.Updating() {
			_ = os.Remove(cp) // a symbolic link is replaced, not written through
			if err := os.WriteFile(cp, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if st, err := os.Lstat(cp); err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s must be a regular file, a copy of %s (helm warns about links): %v; run `make snapshots`", cp, src, err)
			continue
		}
		got, err := os.ReadFile(cp)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s, its source: edit the source and run `make snapshots`", cp, src)
		}
	}
}
