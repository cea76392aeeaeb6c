// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package charts_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestChartRBACFailsWithoutHelm: under REQUIRE_REAL_COMPONENTS=1 (make test) the chart RBAC test
// fails, and does not skip, when helm is missing: HELM_BIN unset, or naming no executable. Without the variable it
// skips, saying which make target installs helm. Runs this test binary again with only that test selected.
func TestChartRBACFailsWithoutHelm(t *testing.T) {
	if os.Getenv("GVISOR_CHILD_RUN") == "1" {
		t.Skip("child run")
	}
	for _, tc := range []struct {
		name, helm, require, want string
	}{
		{name: "unset, required", helm: "", require: "1", want: "--- FAIL: TestInstallAndRunWithChartRBAC"},
		{name: "stale path, required", helm: "/nonexistent/helm", require: "1", want: "--- FAIL: TestInstallAndRunWithChartRBAC"},
		{name: "unset, not required", helm: "", require: "", want: "--- SKIP: TestInstallAndRunWithChartRBAC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestInstallAndRunWithChartRBAC$", "-test.v", "-test.count=1")
			var env []string
			for _, e := range os.Environ() {
				if !strings.HasPrefix(e, "HELM_BIN=") && !strings.HasPrefix(e, "REQUIRE_REAL_COMPONENTS=") {
					env = append(env, e)
				}
			}
			cmd.Env = append(env, "GVISOR_CHILD_RUN=1", "REQUIRE_REAL_COMPONENTS="+tc.require)
			if tc.helm != "" {
				cmd.Env = append(cmd.Env, "HELM_BIN="+tc.helm)
			}
			out, err := cmd.CombinedOutput()
			if !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), "HELM_BIN") {
				t.Fatalf("want %q naming HELM_BIN, got (%v):\n%s", tc.want, err, out)
			}
			if strings.Contains(tc.want, "FAIL") && err == nil {
				t.Errorf("the run exited 0 although the test failed")
			}
		})
	}
}
