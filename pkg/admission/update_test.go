// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission"
)

// TestValidateShootUpdate: only workers whose gVisor part changed are judged; one that was stored before keeps
// being accepted whatever else changes.
func TestValidateShootUpdate(t *testing.T) {
	const bad = "configFlags:\n  net-raww: \"true\"\n"
	const badReordered = "{\"configFlags\": {\"net-raww\": \"true\"}}\n"
	unknownFlag := `.configFlags[net-raww]: Invalid value: "true": unknown or not allowed runsc flag "net-raww"; allowed flags: ` + allowed
	for _, tc := range []struct {
		name     string
		old, new string
		want     []string
	}{
		{"stored bad worker, unrelated worker added", gvisorWorker("a", bad), gvisorWorker("a", bad) + plainWorker("b"), nil},
		{"stored bad worker, reserialized providerConfig", gvisorWorker("a", bad), gvisorWorker("a", badReordered), nil},
		{"stored bad worker, other worker gets a bad config", gvisorWorker("a", bad) + plainWorker("b"), gvisorWorker("a", bad) + gvisorWorker("b", bad),
			[]string{pc1 + unknownFlag}},
		{"workers reordered: matched by name", gvisorWorker("a", bad) + plainWorker("b"), plainWorker("b") + gvisorWorker("a", bad), nil},
		{"valid config changed to a bad one", gvisorWorker("a", ""), gvisorWorker("a", bad), []string{pc0 + unknownFlag}},
		{"gVisor newly added to a worker", plainWorker("a"), gvisorWorker("a", bad), []string{pc0 + unknownFlag}},
		{"worker renamed counts as new", gvisorWorker("a", bad), gvisorWorker("c", bad), []string{pc0 + unknownFlag}},
		{"stored bad config, another flag changed: judged again", gvisorWorker("a", bad), gvisorWorker("a", "configFlags:\n  net-raww: \"true\"\n  debug: \"true\"\n"),
			[]string{pc0 + unknownFlag}},
		{"bad config fixed", gvisorWorker("a", bad), gvisorWorker("a", "configFlags:\n  net-raw: \"true\"\n"), nil},
		{"gVisor removed", gvisorWorker("a", bad), plainWorker("a"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := messages(admission.ValidateShootUpdate(shoot(t, tc.new), shoot(t, tc.old)))
			if diff := cmp.Diff(tc.want, got, cmpEmpty); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
