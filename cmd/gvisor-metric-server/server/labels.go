// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package server

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxLabelValue bounds a label value: Kubernetes names (pods, namespaces, containers) are at most 253 bytes and
// container IDs 64.
const maxLabelValue = 253

// safeLabelValue: v can go into the output as it is. gVisor's Prometheus encoder escapes backslashes and newlines
// wrongly, and a double quote ends a label value, so a value with one of them (or another control character, or
// invalid UTF-8) would make Prometheus refuse the node's whole scrape; no Kubernetes name has one.
func safeLabelValue(v string) bool {
	return len(v) <= maxLabelValue && utf8.ValidString(v) &&
		!strings.ContainsFunc(v, func(r rune) bool { return r == '\\' || r == '"' || unicode.IsControl(r) })
}

// checkLabels refuses labels with a value safeLabelValue does not accept, naming the first such label.
func checkLabels(labels map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if !safeLabelValue(labels[k]) {
			return fmt.Errorf("label %s has a value the metrics cannot carry (%q)", k, labels[k])
		}
	}
	return nil
}
