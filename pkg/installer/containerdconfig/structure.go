// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig

import (
	"github.com/pelletier/go-toml/v2/unstable"
)

// appendableTables reports whether table headers for every path in targets can be appended to data as valid TOML
// that every containerd release reads the same way.
//
// A header [a.b.c] is only safe when no prefix of a.b.c (a, a.b, a.b.c) nor a.b.c itself was defined by a
// key/value: an inline table (`c = { ... }`), a dotted key (`b.c.x = 1` inside [a]) or an array of tables.
// TOML forbids re-opening inline tables, and parsers differ on extending dotted-key tables, so we do not try.
// A header that already exists for a target also makes appending invalid (duplicate table).
func appendableTables(data []byte, targets ...[]string) bool {
	var p unstable.Parser
	p.Reset(data)
	var current []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			current = keyOf(e.Key())
			for _, t := range targets {
				if e.Kind == unstable.ArrayTable && hasPrefix(t, current) {
					return false
				}
				if e.Kind == unstable.Table && equal(current, t) {
					return false // the header exists already: appending it again duplicates it
				}
			}
		case unstable.KeyValue:
			full := child(current, keyOf(e.Key())...)
			// Every prefix of full longer than current is a table defined by this key/value (dotted or inline or
			// the value itself).
			for n := len(current) + 1; n <= len(full); n++ {
				for _, t := range targets {
					if hasPrefix(t, full[:n]) {
						return false
					}
				}
			}
		}
	}
	return p.Error() == nil
}

func keyOf(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

func equal(a, b []string) bool {
	return len(a) == len(b) && hasPrefix(a, b)
}
