// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import (
	"encoding/json"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// cloudProfileJSON is encoded once: every shoot of the benchmark's seed uses the same CloudProfile, as on a
// landscape where most shoots of a seed share one provider's profile.
var cloudProfileJSON = func() []byte { return mustJSON(CloudProfile()) }()

// Cluster is the Cluster gardenlet writes into a shoot namespace: the CloudProfile, the Seed and the Shoot with
// one gVisor worker pool per name in pools (architecture amd64, containerd with gvisor).
func Cluster(namespace, shootName string, pools []string) *extensionsv1alpha1.Cluster {
	arch := "amd64"
	shoot := &gardencorev1beta1.Shoot{
		TypeMeta: metav1.TypeMeta{APIVersion: gardencorev1beta1.SchemeGroupVersion.String(), Kind: "Shoot"},
		ObjectMeta: metav1.ObjectMeta{
			Name: shootName, Namespace: "garden-bench", Generation: 7, UID: shootUID(shootName),
			Annotations: map[string]string{"gardener.cloud/created-by": "bench@example.com"},
			Labels:      map[string]string{"shoot.gardener.cloud/status": "healthy", "extensions.extensions.gardener.cloud/shoot-dns-service": "true"},
		},
		Spec: gardencorev1beta1.ShootSpec{
			CloudProfileName:  new("aws"),
			Region:            "eu-central-1",
			SecretBindingName: new("bench-aws"),
			Kubernetes:        gardencorev1beta1.Kubernetes{Version: "1.34.1"},
			Networking:        &gardencorev1beta1.Networking{Type: new("calico"), Nodes: new("10.250.0.0/16"), Pods: new("100.64.0.0/12"), Services: new("100.104.0.0/13")},
			Provider:          gardencorev1beta1.Provider{Type: "aws"},
			Purpose:           new(gardencorev1beta1.ShootPurposeProduction),
		},
	}
	for i, pool := range pools {
		shoot.Spec.Provider.Workers = append(shoot.Spec.Provider.Workers, gardencorev1beta1.Worker{
			Name: pool, Minimum: 1, Maximum: 5, Zones: []string{fmt.Sprintf("eu-central-1%c", 'a'+i%3)},
			Machine: gardencorev1beta1.Machine{Type: "m6i.xlarge", Architecture: &arch, Image: &gardencorev1beta1.ShootMachineImage{Name: "gardenlinux", Version: new("1592.3.0")}},
			CRI:     &gardencorev1beta1.CRI{Name: gardencorev1beta1.CRINameContainerD, ContainerRuntimes: []gardencorev1beta1.ContainerRuntime{{Type: "gvisor"}}},
			Volume:  &gardencorev1beta1.Volume{Type: new("gp3"), VolumeSize: "50Gi"},
		})
	}
	seed := &gardencorev1beta1.Seed{
		TypeMeta:   metav1.TypeMeta{APIVersion: gardencorev1beta1.SchemeGroupVersion.String(), Kind: "Seed"},
		ObjectMeta: metav1.ObjectMeta{Name: "aws-eu1", Labels: map[string]string{"seed.gardener.cloud/eu-access": "true"}},
		Spec: gardencorev1beta1.SeedSpec{
			Provider: gardencorev1beta1.SeedProvider{Type: "aws", Region: "eu-central-1"},
			Ingress:  &gardencorev1beta1.Ingress{Domain: "ingress.aws-eu1.example.com", Controller: gardencorev1beta1.IngressController{Kind: "nginx"}},
			Networks: gardencorev1beta1.SeedNetworks{Nodes: new("10.0.0.0/16"), Pods: "100.96.0.0/11", Services: "100.64.0.0/13"},
		},
	}
	return &extensionsv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: namespace},
		Spec: extensionsv1alpha1.ClusterSpec{
			CloudProfile: runtime.RawExtension{Raw: cloudProfileJSON},
			Seed:         &runtime.RawExtension{Raw: mustJSON(seed)},
			Shoot:        runtime.RawExtension{Raw: mustJSON(shoot)},
		},
	}
}

// shootUID is a UID unique per shoot name (s00, s01, ..., s100).
func shootUID(shootName string) types.UID {
	digits := strings.TrimPrefix(shootName, "s")
	return types.UID("00000000-0000-0000-0000-" + strings.Repeat("0", max(0, 12-len(digits))) + digits)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // typed API objects: cannot fail
	}
	return b
}
