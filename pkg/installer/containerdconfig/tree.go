// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdconfig

import (
	"path/filepath"
	"sort"
)

func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = deepCopyValue(v)
	}
	return out
}

func deepCopyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return deepCopy(t)
	case []any:
		out := make([]any, len(t))
		for i := range t {
			out[i] = deepCopyValue(t[i])
		}
		return out
	}
	return v
}

// ensureTable returns the table at path, creating missing ones. Callers have checked (Parse) that existing parts
// are tables.
func ensureTable(m map[string]any, path ...string) map[string]any {
	cur := m
	for _, k := range path {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	return cur
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// matchesAny reports whether target is matched by one of the import patterns of the file at importer.
func matchesAny(patterns []string, importer, target string) bool {
	for _, p := range patterns {
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(importer), p)
		}
		if ok, err := filepath.Match(filepath.Clean(p), target); err == nil && ok {
			return true
		}
	}
	return false
}
