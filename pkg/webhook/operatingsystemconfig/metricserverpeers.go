// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"fmt"
	"net/netip"
	"slices"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
)

// metricServerPeers are the networks the node's metric server answers in the OperatingSystemConfig mode besides the
// node itself: the shoot's node and pod networks (spec.networking, and status.networking for the families Gardener
// adds there). The shoot Prometheus' scrape comes through the API server's node proxy and Gardener's VPN, which
// leaves the VPN at a vpn-shoot pod masqueraded to that pod's address; a CNI may masquerade it once more to a node's
// address on the way to another node. Everything outside the shoot (the infrastructure network's other machines,
// other shoots' nodes on a shared network, the internet) is refused by the unit's address restriction. Invalid
// CIDRs (which gardener-apiserver does not admit) are an error naming the field; none known leaves only the node.
func metricServerPeers(shoot *gardencorev1beta1.Shoot) ([]string, error) {
	type network struct{ field, cidr string }
	var networks []network
	if n := shoot.Spec.Networking; n != nil {
		if n.Nodes != nil {
			networks = append(networks, network{"spec.networking.nodes", *n.Nodes})
		}
		if n.Pods != nil {
			networks = append(networks, network{"spec.networking.pods", *n.Pods})
		}
	}
	if n := shoot.Status.Networking; n != nil {
		for i, cidr := range n.Nodes {
			networks = append(networks, network{fmt.Sprintf("status.networking.nodes[%d]", i), cidr})
		}
		for i, cidr := range n.Pods {
			networks = append(networks, network{fmt.Sprintf("status.networking.pods[%d]", i), cidr})
		}
	}
	peers := make([]string, 0, len(networks))
	for _, n := range networks {
		prefix, err := netip.ParsePrefix(n.cidr)
		if err != nil {
			return nil, fmt.Errorf("the Shoot's %s %q is not a CIDR (%w): the metric server's address restriction needs the shoot's networks", n.field, n.cidr, err)
		}
		peers = append(peers, prefix.Masked().String())
	}
	slices.Sort(peers)
	return slices.Compact(peers), nil
}
