// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"strings"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/oscstate"
)

func TestOSCNodesResult(t *testing.T) {
	delivering := oscstate.OSC{Entry: oscstate.Add, Files: []string{"/var/bin/containerruntimes/runsc"}}
	for _, tc := range []struct {
		name       string
		state      oscstate.Pool
		wantStatus gardencorev1beta1.ConditionStatus
		want       []string
	}{
		{"no nodes", oscstate.Pool{}, gardencorev1beta1.ConditionTrue, nil},
		{"all applied", oscstate.Pool{SecretName: "s", Checksum: "c1", OSC: delivering, Nodes: []oscstate.Node{{Name: "n0", Applied: "c1"}}},
			gardencorev1beta1.ConditionTrue, nil},
		{"no secret yet", oscstate.Pool{Nodes: []oscstate.Node{{Name: "n0"}}}, gardencorev1beta1.ConditionProgressing,
			[]string{`worker pool "a" has no OperatingSystemConfig secret`}},
		{"OSC without gVisor", oscstate.Pool{SecretName: "s", Checksum: "c1", OSC: oscstate.OSC{Entry: oscstate.None}, Nodes: []oscstate.Node{{Name: "n0", Applied: "c1"}}},
			gardencorev1beta1.ConditionProgressing, []string{"does not deliver gVisor yet", "gardener.cloud/operation=reconcile"}},
		{"proof failed and one pending", oscstate.Pool{SecretName: "s", Checksum: "c2", OSC: delivering, Nodes: []oscstate.Node{
			{Name: "n0", Applied: "c2"}, {Name: "n1", Applied: "c1"}, {Name: "n2", Applied: "c2", ProofFailed: "gvisor-sandbox-proof.service: failed"}}},
			gardencorev1beta1.ConditionFalse, []string{`gVisor is not ready on 2 of 3 nodes of worker pool "a": n2 (gardener-node-agent reports gvisor-sandbox-proof.service: failed`,
				"n1 (gardener-node-agent has not applied the pool's current OperatingSystemConfig yet"}},
		{"not reported yet", oscstate.Pool{SecretName: "s", Checksum: "c2", OSC: delivering, Nodes: []oscstate.Node{{Name: "n0"}}},
			gardencorev1beta1.ConditionProgressing, []string{"n0 (gardener-node-agent has not applied an OperatingSystemConfig yet)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := oscNodesResult("a", &tc.state)
			if res.Status != tc.wantStatus {
				t.Fatalf("status %s, want %s (%s)", res.Status, tc.wantStatus, res.Detail)
			}
			if res.Status == gardencorev1beta1.ConditionProgressing && res.ProgressingThreshold == nil {
				t.Error("Progressing without a threshold never turns False")
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Detail, w) {
					t.Errorf("detail %q does not contain %q", res.Detail, w)
				}
			}
		})
	}
}
