// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package osctest builds the objects gardenlet writes for a shoot with gVisor on one of two worker pools: the
// Shoot (inside a Cluster) and the pools' OperatingSystemConfigs with the labels, purpose and criConfig gardenlet
// sets. The webhook's unit tests, the envtest test (test/osc) and the node-side tests share them.
package osctest

import (
	"fmt"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

const (
	// Namespace is the shoot's control plane namespace in the seed (also the Cluster's name).
	Namespace = "shoot--dev--gvisor"
	// GVisorPool has gvisor among its container runtimes.
	GVisorPool = "pool-gvisor"
	// OtherPool has no container runtimes.
	OtherPool = "pool-runc"
	// KubernetesVersion is the shoot's.
	KubernetesVersion = "1.33.4"
)

// ProviderConfig is a valid gVisor providerConfig with flags (JSON, as the Shoot carries it).
const ProviderConfig = `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration",` +
	`"configFlags":{"net-raw":"true","debug":"true"}}`

// BadProviderConfig has a flag outside the allowlist.
const BadProviderConfig = `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration",` +
	`"configFlags":{"no-such-flag":"1"}}`

// Shoot returns a shoot with two pools; providerConfig is the gvisor runtime's of GVisorPool ("" for none), and
// withGVisor false leaves gvisor out of GVisorPool (gVisor removed from the pool).
func Shoot(withGVisor bool, providerConfig string) *gardencorev1beta1.Shoot {
	cri := &gardencorev1beta1.CRI{Name: gardencorev1beta1.CRINameContainerD}
	if withGVisor {
		r := gardencorev1beta1.ContainerRuntime{Type: "gvisor"}
		if providerConfig != "" {
			r.ProviderConfig = &runtime.RawExtension{Raw: []byte(providerConfig)}
		}
		cri.ContainerRuntimes = []gardencorev1beta1.ContainerRuntime{r}
	}
	return &gardencorev1beta1.Shoot{
		TypeMeta:   metav1.TypeMeta{APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot"},
		ObjectMeta: metav1.ObjectMeta{Name: "gvisor", Namespace: "garden-dev"},
		Spec: gardencorev1beta1.ShootSpec{
			Kubernetes: gardencorev1beta1.Kubernetes{Version: KubernetesVersion},
			Provider: gardencorev1beta1.Provider{Type: "local", Workers: []gardencorev1beta1.Worker{
				{Name: GVisorPool, CRI: cri, Machine: gardencorev1beta1.Machine{Type: "m", Architecture: ptr.To("amd64")}},
				{Name: OtherPool, CRI: &gardencorev1beta1.CRI{Name: gardencorev1beta1.CRINameContainerD},
					Machine: gardencorev1beta1.Machine{Type: "m", Architecture: ptr.To("amd64")}},
			}},
		},
	}
}

// Cluster wraps shoot as the webhook reads it.
func Cluster(shoot *gardencorev1beta1.Shoot) *extensionscontroller.Cluster {
	return &extensionscontroller.Cluster{ObjectMeta: metav1.ObjectMeta{Name: Namespace}, Shoot: shoot}
}

// OSC returns the reconcile OSC of pool as gardenlet writes it (pkg/component/extensions/operatingsystemconfig:
// labels worker.gardener.cloud/pool and provider.extensions.gardener.cloud/mutated-by-controlplane-webhook, purpose,
// criConfig containerd), with one file, one unit and one plugin entry of others that must survive the mutation.
func OSC(pool string) *extensionsv1alpha1.OperatingSystemConfig {
	return &extensionsv1alpha1.OperatingSystemConfig{
		TypeMeta: metav1.TypeMeta{APIVersion: "extensions.gardener.cloud/v1alpha1", Kind: "OperatingSystemConfig"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("worker-%s-reconcile", pool),
			Namespace: Namespace,
			Labels: map[string]string{
				v1beta1constants.LabelWorkerPool:                                    pool,
				v1beta1constants.LabelExtensionProviderMutatedByControlplaneWebhook: "true",
			},
		},
		Spec: extensionsv1alpha1.OperatingSystemConfigSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "gardenlinux"},
			Purpose:     extensionsv1alpha1.OperatingSystemConfigPurposeReconcile,
			CRIConfig: &extensionsv1alpha1.CRIConfig{
				Name:         extensionsv1alpha1.CRINameContainerD,
				CgroupDriver: ptr.To(extensionsv1alpha1.CgroupDriverSystemd),
				Containerd: &extensionsv1alpha1.ContainerdConfig{
					SandboxImage: "registry.k8s.io/pause:3.10",
					Plugins: []extensionsv1alpha1.PluginConfig{{
						Path:   []string{"io.containerd.grpc.v1.cri", "containerd"},
						Values: &apiextensionsv1.JSON{Raw: []byte(`{"snapshotter":"overlayfs"}`)},
					}},
				},
			},
			Units: []extensionsv1alpha1.Unit{{
				// As gardenlet's original kubelet component writes it: a multi-line ExecStart that any unit
				// re-serialization would change (so it proves the webhook leaves other units' bytes alone).
				Name: "kubelet.service", Command: ptr.To(extensionsv1alpha1.CommandStart), Enable: ptr.To(true),
				Content: ptr.To("[Unit]\nDescription=kubelet daemon\nAfter=containerd.service\n[Install]\nWantedBy=multi-user.target\n" +
					"[Service]\nRestart=always\nRestartSec=5\nExecStart=/opt/bin/kubelet \\\n    --bootstrap-kubeconfig=/var/lib/kubelet/kubeconfig-bootstrap \\\n" +
					"    --config=/var/lib/kubelet/config/kubelet $KUBELET_EXTRA_ARGS"),
			}, {
				Name: "kubelet-monitor.service", Command: ptr.To(extensionsv1alpha1.CommandStart), Enable: ptr.To(true),
				Content: ptr.To("[Unit]\nDescription=kubelet monitor\n[Service]\nExecStart=/opt/bin/health-monitor-kubelet\n"),
			}},
			Files: []extensionsv1alpha1.File{{
				Path: "/opt/bin/health-monitor-kubelet", Permissions: ptr.To[uint32](0o755),
				Content: extensionsv1alpha1.FileContent{Inline: &extensionsv1alpha1.FileContentInline{Encoding: "b64", Data: "IyEvYmluL3NoCg=="}},
			}},
		},
	}
}

// ProvisionOSC returns the provision OSC of pool (purpose provision), which the webhook leaves alone.
func ProvisionOSC(pool string) *extensionsv1alpha1.OperatingSystemConfig {
	o := OSC(pool)
	o.Name = fmt.Sprintf("worker-%s-provision", pool)
	o.Spec.Purpose = extensionsv1alpha1.OperatingSystemConfigPurposeProvision
	return o
}
