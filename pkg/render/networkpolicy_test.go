// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package render_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

// TestInstallationPodsIsolated: the pool's NetworkPolicy isolates its installation pods for ingress and admits
// nothing itself, so no pod of the shoot reaches the metric server; with sandbox metrics on, the pods are selected by
// Gardener's own gardener.cloud--allow-from-seed (built by Gardener's vpn-shoot component), which lets the control
// plane's proxied scrape in through the vpn-shoot pods. Off, Gardener's policy does not select them: they accept no
// connection at all. The enforcement itself is proven on the VM node (test/e2e, tenantsRefused).
func TestInstallationPodsIsolated(t *testing.T) {
	r := newRenderer(t, "v0.1.0-dev", "")
	allowFromSeed := gardenerfixtures.VPNShoot(gardenerfixtures.Shoot("dev", "bar", "1.35.0", gardenerfixtures.Worker("pool"))).AllowFromSeed
	for _, on := range []bool{false, true} {
		m, err := r.Installation(render.InstallationValues{WorkerPool: "pool", BinaryPath: "/var/bin/containerruntimes", SandboxMetrics: on})
		if err != nil {
			t.Fatal(err)
		}
		var ds *appsv1.DaemonSet
		var policies []*networkingv1.NetworkPolicy
		for _, o := range m.Objects() {
			switch x := o.(type) {
			case *appsv1.DaemonSet:
				ds = x
			case *networkingv1.NetworkPolicy:
				policies = append(policies, x)
			}
		}
		pod := labels.Set(ds.Spec.Template.Labels)
		if len(policies) != 1 {
			t.Fatalf("sandboxMetrics %v: %d NetworkPolicies, want 1", on, len(policies))
		}
		own := policies[0]
		if own.Namespace != ds.Namespace || !selector(t, own.Spec.PodSelector).Matches(pod) ||
			len(own.Spec.PolicyTypes) != 1 || own.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress || len(own.Spec.Ingress) != 0 {
			t.Errorf("sandboxMetrics %v: %s/%s does not isolate the installation pods (labels %v) for ingress alone: %+v", on, own.Namespace, own.Name, pod, own.Spec)
		}
		if got := selector(t, allowFromSeed.Spec.PodSelector).Matches(pod); got != on {
			t.Errorf("sandboxMetrics %v: Gardener's %s selects the installation pods (labels %v): %v, want %v", on, allowFromSeed.Name, pod, got, on)
		}
	}
}

func selector(t *testing.T, s metav1.LabelSelector) labels.Selector {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(&s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}
