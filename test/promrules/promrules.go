// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package promrules writes Prometheus rule unit tests (promtool test rules) from real scrapes: the promtool to
// run them with, and the pieces of a test file's text that name series and labels. The shoot rules' tests
// (test/monitoring, on the metric server's series) and the seed rules' test (test/integration/monitoring, on the
// controller's) write their files with it, so both name series and expected labels the same way.
package promrules

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// Promtool returns Prometheus' promtool (GVISOR_TEST_PROMTOOL, hack/tools/promtool.sh); a test without it skips
// (fails under REQUIRE_REAL_COMPONENTS=1).
func Promtool(t testing.TB) string {
	t.Helper()
	return realcomponents.Env(t, "GVISOR_TEST_PROMTOOL", "tool-promtool")
}

// Series is a series as a test file's input_series and expected samples name it: name{k="v",...} with the
// labels sorted by name and the values quoted as Go (and PromQL) strings.
func Series(name string, labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, fmt.Sprintf("%s=%q", k, labels[k]))
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

// YAMLMap is m as YAML lines `key: "value"` indented by indent spaces, sorted by key (an expected alert's
// exp_labels and exp_annotations), so that a test file's text does not depend on map order.
func YAMLMap(m map[string]string, indent int) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s%s: %q\n", strings.Repeat(" ", indent), k, m[k])
	}
	return b.String()
}
