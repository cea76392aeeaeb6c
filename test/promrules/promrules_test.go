// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package promrules

import "testing"

// TestSeriesAndYAMLMap pins the text both rule tests write: labels sorted, values quoted (a quote and a backslash
// escaped), no labels as {}.
func TestSeriesAndYAMLMap(t *testing.T) {
	if got, want := Series("m", map[string]string{"pod": "p-1", "node": "n", "q": `a"b\c`}), `m{node="n",pod="p-1",q="a\"b\\c"}`; got != want {
		t.Errorf("Series = %s, want %s", got, want)
	}
	if got, want := Series("up", nil), "up{}"; got != want {
		t.Errorf("Series without labels = %s, want %s", got, want)
	}
	if got, want := YAMLMap(map[string]string{"summary": "s", "description": "d: x"}, 2), "  description: \"d: x\"\n  summary: \"s\"\n"; got != want {
		t.Errorf("YAMLMap = %q, want %q", got, want)
	}
}
