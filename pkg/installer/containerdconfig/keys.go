// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig

import (
	"strconv"
	"strings"
)

// dottedKey renders a key path as TOML writes it in a table header: bare keys where allowed, quoted otherwise.
func dottedKey(path []string) string {
	parts := make([]string, len(path))
	for i, k := range path {
		parts[i] = quoteKey(k)
	}
	return strings.Join(parts, ".")
}

func quoteKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, c := range k {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			return strconv.Quote(k)
		}
	}
	return k
}

func hasPrefix(path, prefix []string) bool {
	if len(prefix) > len(path) {
		return false
	}
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}

// child returns a new path: path followed by keys. It never shares path's backing array, so paths derived from one
// parent cannot overwrite each other (what a bare append would risk).
func child(path []string, keys ...string) []string {
	out := make([]string, 0, len(path)+len(keys))
	return append(append(out, path...), keys...)
}
