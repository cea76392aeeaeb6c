// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gardenerfixtures

import (
	"context"
	"errors"
	"net"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	vpnshoot "github.com/gardener/gardener/pkg/component/networking/vpn/shoot"
	"github.com/gardener/gardener/pkg/utils/managedresources"
	fakesecretsmanager "github.com/gardener/gardener/pkg/utils/secrets/manager/fake"
)

// VPNShootObjects is what gardenlet's vpn-shoot component puts into a shoot's kube-system for the control plane's
// reach into the shoot: the API server's proxied requests (pods/proxy, nodes/proxy, the shoot Prometheus' scrapes)
// enter the shoot network at the vpn-shoot pods, masqueraded to their address (gardener/vpn2's shoot client).
type VPNShootObjects struct {
	// AllowFromSeed is gardener.cloud--allow-from-seed: ingress from the vpn-shoot pods to every kube-system pod
	// labelled networking.gardener.cloud/from-seed=allowed.
	AllowFromSeed *networkingv1.NetworkPolicy
	// PodLabels are the vpn-shoot pods' labels (its Deployment's pod template).
	PodLabels map[string]string
}

// VPNShoot runs gardenlet's vpn-shoot component (pkg/component/networking/vpn/shoot, Deploy) for shoot against a
// fake seed and returns the objects of its ManagedResource that decide who reaches the shoot's kube-system pods
// from the control plane.
func VPNShoot(shoot *gardencorev1beta1.Shoot) VPNShootObjects {
	ctx := context.Background()
	namespace := Namespace(shoot)
	c := fakeclient.NewClientBuilder().WithScheme(kubernetes.SeedScheme).Build()
	// The VPN's CA and TLS auth secrets gardenlet's secrets manager holds; the fake one hands out whatever secret of
	// that name exists.
	for _, name := range []string{v1beta1constants.SecretNameCAVPN, "vpn-seed-server-tlsauth"} {
		must("creating the VPN secrets", c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}))
	}
	_, pods, _ := net.ParseCIDR("100.64.0.0/12")
	_, services, _ := net.ParseCIDR("100.104.0.0/13")
	_, nodes, _ := net.ParseCIDR("10.250.0.0/16")
	component := vpnshoot.New(c, namespace, fakesecretsmanager.New(c, namespace), vpnshoot.Values{
		Image: "vpn-shoot",
		ReversedVPN: vpnshoot.ReversedVPNValues{
			Header:     "outbound|1194||vpn-seed-server." + namespace + ".svc.cluster.local",
			Endpoint:   "api." + shoot.Name + "." + Landscape,
			IPFamilies: []gardencorev1beta1.IPFamily{gardencorev1beta1.IPFamilyIPv4},
		},
		SeedPodNetwork: "10.1.0.0/16",
		Network:        vpnshoot.NetworkValues{PodCIDRs: []net.IPNet{*pods}, ServiceCIDRs: []net.IPNet{*services}, NodeCIDRs: []net.IPNet{*nodes}},
	})
	must("deploying vpn-shoot", component.Deploy(ctx))

	out := VPNShootObjects{}
	objects, err := managedresources.GetObjects(ctx, c, namespace, "shoot-core-vpn-shoot")
	must("reading vpn-shoot's ManagedResource", err)
	for _, obj := range objects {
		switch o := obj.(type) {
		case *networkingv1.NetworkPolicy:
			if o.Name == "gardener.cloud--allow-from-seed" {
				out.AllowFromSeed = o
			}
		case *appsv1.Deployment:
			out.PodLabels = o.Spec.Template.Labels
		}
	}
	if out.AllowFromSeed == nil || len(out.PodLabels) == 0 {
		must("finding gardener.cloud--allow-from-seed and the vpn-shoot Deployment", errors.New("not in the ManagedResource"))
	}
	return out
}
