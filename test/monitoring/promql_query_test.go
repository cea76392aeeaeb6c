// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import "testing"

// TestQueryAtTellsEmptyFromData: the evaluation the dashboard test relies on gives a query's real values, and no
// entry for a query that returns nothing (what fails a panel), with Prometheus' engine (promtool) doing the work.
func TestQueryAtTellsEmptyFromData(t *testing.T) {
	input := []string{"      - series: 'runsc_num_sandboxes_running{node=\"n1\"}'\n        values: '1+1x5'\n"}
	got := queryAt(t, nil, input, []string{"sum by (node) (runsc_num_sandboxes_running)", "runsc_no_such_metric"}, []int{0, 3})
	if r := got["sum by (node) (runsc_num_sandboxes_running)"]; len(r[0]) != 1 || r[0][0].value != 1 || r[3][0].value != 4 ||
		r[3][0].labels != `{node="n1"}` {
		t.Errorf("sum at 0m and 3m: got %v, want {node=\"n1\"} 1 and 4", r)
	}
	if r, ok := got["runsc_no_such_metric"]; ok {
		t.Errorf("a query of a metric that does not exist gave %v, want no entry", r)
	}
}
