// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package osctest builds the objects gardenlet writes for a shoot with gVisor on one of two worker pools: the
// Shoot (inside a Cluster) and the pools' OperatingSystemConfigs, by Gardener's own code (test/gardenerfixtures).
// The webhook's unit tests, the envtest test (test/osc) and the node-side tests share them.
package osctest

import (
	"sync"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
)

const (
	// Project is the shoot's project in the garden.
	Project = "dev"
	// ShootName is the shoot's name in the garden.
	ShootName = "gvisor"
	// Namespace is the shoot's control plane namespace in the seed (also the Cluster's name): gardenlet's technical
	// ID of the shoot (Shoot checks it).
	Namespace = "shoot--dev--gvisor"
	// GVisorPool has gvisor among its container runtimes.
	GVisorPool = "pool-gvisor"
	// OtherPool has no container runtimes.
	OtherPool = "pool-runc"
	// KubernetesVersion is the shoot's.
	KubernetesVersion = "1.33.4"
	// NodeNetwork is the shoot's node network (spec.networking.nodes).
	NodeNetwork = "10.250.0.0/16"
)

// ProviderConfig is a valid gVisor providerConfig with flags (JSON, as the Shoot carries it).
const ProviderConfig = `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration",` +
	`"configFlags":{"net-raw":"true","debug":"true"}}`

// BadProviderConfig has a flag outside the allowlist.
const BadProviderConfig = `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration",` +
	`"configFlags":{"no-such-flag":"1"}}`

// Shoot returns the shoot with two pools as gardener-apiserver stores it; providerConfig is the gvisor runtime's of
// GVisorPool ("" for none), and withGVisor false leaves gvisor out of GVisorPool (gVisor removed from the pool).
func Shoot(withGVisor bool, providerConfig string) *gardencorev1beta1.Shoot {
	var runtimes []gardencorev1beta1.ContainerRuntime
	if withGVisor {
		var raw []byte
		if providerConfig != "" {
			raw = []byte(providerConfig)
		}
		runtimes = append(runtimes, gardenerfixtures.GVisor(raw))
	}
	shoot := gardenerfixtures.Shoot(Project, ShootName, KubernetesVersion,
		gardenerfixtures.Worker(GVisorPool, runtimes...), gardenerfixtures.Worker(OtherPool))
	// The shoot owner's networks (a shoot with workers names its node network; the pods' is Gardener's default):
	// they bound who reaches the metric server.
	shoot.Spec.Networking = &gardencorev1beta1.Networking{Nodes: ptr.To(NodeNetwork), Pods: ptr.To(gardencorev1beta1.DefaultPodNetworkCIDR)}
	if ns := gardenerfixtures.Namespace(shoot); ns != Namespace {
		panic("osctest: gardenlet puts the shoot into namespace " + ns + ", not Namespace " + Namespace)
	}
	return shoot
}

// Cluster wraps shoot as the webhook reads it: gardenlet's Cluster, decoded by the extension library.
func Cluster(shoot *gardencorev1beta1.Shoot) *extensionscontroller.Cluster {
	return gardenerfixtures.DecodedCluster(shoot)
}

// gardenlets holds the pools' OSCs as gardenlet writes them. The container runtimes are not part of an OSC's name
// (the pool's key), so one shoot serves every variant.
var gardenlets = sync.OnceValue(func() map[string]gardenerfixtures.PoolOSCs {
	return gardenerfixtures.OperatingSystemConfigs(Shoot(true, ""))
})

// GardenletOSCs returns pool's OSCs exactly as gardenlet writes them (its own units and files included).
func GardenletOSCs(pool string) gardenerfixtures.PoolOSCs {
	o := gardenlets()[pool]
	return gardenerfixtures.PoolOSCs{Provision: o.Provision.DeepCopy(), Reconcile: o.Reconcile.DeepCopy(), SecretName: o.SecretName}
}

// OSC returns the reconcile OSC of pool as gardenlet writes it (name, labels, annotations, purpose, type,
// criConfig: gardenerfixtures), with the units, files and plugin entry of others that must survive the mutation in
// place of gardenlet's own (those would start a kubelet on test/nodeagent's node; GardenletOSCs has them).
func OSC(pool string) *extensionsv1alpha1.OperatingSystemConfig {
	return withOthers(GardenletOSCs(pool).Reconcile)
}

// OSCOf is OSC for pool of another shoot (another project or name, or a pool key after a rolling update).
func OSCOf(shoot *gardencorev1beta1.Shoot, pool string) *extensionsv1alpha1.OperatingSystemConfig {
	return withOthers(gardenerfixtures.OperatingSystemConfigs(shoot)[pool].Reconcile)
}

// withOthers replaces gardenlet's units, files and plugin entries of o by those of OSC.
func withOthers(o *extensionsv1alpha1.OperatingSystemConfig) *extensionsv1alpha1.OperatingSystemConfig {
	o.TypeMeta = metav1.TypeMeta{APIVersion: extensionsv1alpha1.SchemeGroupVersion.String(), Kind: "OperatingSystemConfig"}
	o.Spec.CRIConfig.Containerd.Plugins = []extensionsv1alpha1.PluginConfig{{
		Path:   []string{"io.containerd.grpc.v1.cri", "containerd"},
		Values: &apiextensionsv1.JSON{Raw: []byte(`{"snapshotter":"overlayfs"}`)},
	}}
	o.Spec.Units = []extensionsv1alpha1.Unit{{
		// As gardenlet's original kubelet component writes it: a multi-line ExecStart that any unit
		// re-serialization would change (so it proves the webhook leaves other units' bytes alone).
		Name: "kubelet.service", Command: ptr.To(extensionsv1alpha1.CommandStart), Enable: ptr.To(true),
		Content: ptr.To("[Unit]\nDescription=kubelet daemon\nAfter=containerd.service\n[Install]\nWantedBy=multi-user.target\n" +
			"[Service]\nRestart=always\nRestartSec=5\nExecStart=/opt/bin/kubelet \\\n    --bootstrap-kubeconfig=/var/lib/kubelet/kubeconfig-bootstrap \\\n" +
			"    --config=/var/lib/kubelet/config/kubelet $KUBELET_EXTRA_ARGS"),
	}, {
		Name: "kubelet-monitor.service", Command: ptr.To(extensionsv1alpha1.CommandStart), Enable: ptr.To(true),
		Content: ptr.To("[Unit]\nDescription=kubelet monitor\n[Service]\nExecStart=/opt/bin/health-monitor-kubelet\n"),
	}}
	o.Spec.Files = []extensionsv1alpha1.File{{
		Path: "/opt/bin/health-monitor-kubelet", Permissions: ptr.To[uint32](0o755),
		Content: extensionsv1alpha1.FileContent{Inline: &extensionsv1alpha1.FileContentInline{Encoding: "b64", Data: "IyEvYmluL3NoCg=="}},
	}}
	return o
}

// ProvisionOSC returns the provision OSC of pool exactly as gardenlet writes it, which the webhook leaves alone.
func ProvisionOSC(pool string) *extensionsv1alpha1.OperatingSystemConfig {
	o := GardenletOSCs(pool).Provision
	o.TypeMeta = metav1.TypeMeta{APIVersion: extensionsv1alpha1.SchemeGroupVersion.String(), Kind: "OperatingSystemConfig"}
	return o
}
