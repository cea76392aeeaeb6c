// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gardenerfixtures_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// TestVPNShoot: Gardener's allow-from-seed policy admits traffic from the vpn-shoot pods (the labels its Deployment
// gives them) to the kube-system pods labelled networking.gardener.cloud/from-seed=allowed, which is what the
// installation chart relies on for the shoot Prometheus' scrape.
func TestVPNShoot(t *testing.T) {
	vpn := gardenerfixtures.VPNShoot(gardenerfixtures.Shoot("dev", "bar", "1.35.0", gardenerfixtures.Worker("worker")))
	if vpn.AllowFromSeed.Namespace != metav1.NamespaceSystem {
		t.Errorf("allow-from-seed is in %q, want kube-system", vpn.AllowFromSeed.Namespace)
	}
	if !selects(t, &vpn.AllowFromSeed.Spec.PodSelector, map[string]string{"networking.gardener.cloud/from-seed": "allowed"}) {
		t.Errorf("allow-from-seed does not select the pods labelled networking.gardener.cloud/from-seed=allowed: %v", vpn.AllowFromSeed.Spec.PodSelector)
	}
	admitted := false
	for _, rule := range vpn.AllowFromSeed.Spec.Ingress {
		for _, peer := range rule.From {
			admitted = admitted || (peer.NamespaceSelector == nil && peer.PodSelector != nil && selects(t, peer.PodSelector, vpn.PodLabels))
		}
	}
	if !admitted {
		t.Errorf("allow-from-seed admits no traffic from the vpn-shoot pods (labels %v): %+v", vpn.PodLabels, vpn.AllowFromSeed.Spec.Ingress)
	}
}

func selects(t *testing.T, selector *metav1.LabelSelector, set map[string]string) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		t.Fatal(err)
	}
	return s.Matches(labels.Set(set))
}
