// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig_test

import (
	"strings"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	osc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
)

// TestMetricServerPeers: the metric server answers the shoot's node and pod networks of either place Gardener keeps
// them (spec for the shoot owner's, status for a dual-stack shoot's further families), each once and masked; an
// invalid CIDR is refused naming its field; a Shoot naming none leaves only the node itself.
func TestMetricServerPeers(t *testing.T) {
	for _, tt := range []struct {
		name       string
		spec       *gardencorev1beta1.Networking
		status     *gardencorev1beta1.NetworkingStatus
		want       []string
		wantErrFor string
	}{
		{name: "none"},
		{name: "spec", spec: &gardencorev1beta1.Networking{Nodes: ptr.To("10.250.0.0/16"), Pods: ptr.To("100.96.0.0/11"), Services: ptr.To("100.64.0.0/13")},
			want: []string{"10.250.0.0/16", "100.96.0.0/11"}},
		{name: "dual stack in the status, overlapping the spec, unmasked",
			spec:   &gardencorev1beta1.Networking{Nodes: ptr.To("10.250.0.0/16")},
			status: &gardencorev1beta1.NetworkingStatus{Nodes: []string{"10.250.0.0/16", "2001:db8:1::/48"}, Pods: []string{"100.96.7.1/11", "fd00:10:96::/56"}},
			want:   []string{"10.250.0.0/16", "100.96.0.0/11", "2001:db8:1::/48", "fd00:10:96::/56"}},
		{name: "invalid", spec: &gardencorev1beta1.Networking{Nodes: ptr.To("10.250.0.0")}, wantErrFor: `spec.networking.nodes "10.250.0.0"`},
		{name: "invalid in the status", status: &gardencorev1beta1.NetworkingStatus{Pods: []string{"100.96.0.0/11", "pods"}}, wantErrFor: `status.networking.pods[1] "pods"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			shoot := &gardencorev1beta1.Shoot{Spec: gardencorev1beta1.ShootSpec{Networking: tt.spec}, Status: gardencorev1beta1.ShootStatus{Networking: tt.status}}
			got, err := osc.MetricServerPeers(shoot)
			if tt.wantErrFor != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrFor) {
					t.Fatalf("error %v, want one naming %s", err, tt.wantErrFor)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b []string) bool { return strings.Join(a, " ") == strings.Join(b, " ") })); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
