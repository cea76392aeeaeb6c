// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gardenerfixtures

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	gardenerextensions "github.com/gardener/gardener/pkg/extensions"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"
)

// Timestamp is the time every gardener.cloud/timestamp annotation of the fixtures carries (gardenlet writes its
// clock's; a fixed one keeps golden files stable).
var Timestamp = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Landscape is the name of the CloudProfile, Seed, region and provider type of every fixture shoot.
const Landscape = "local"

// MachineImage is the machine image of Worker's pools (the OSC's spec.type; its version is part of the pool's
// OSC key, so a new version is a rolling update).
const MachineImage = "gardenlinux"

// Worker returns a worker pool of a Shoot's spec as a shoot owner writes it: machine type m and MachineImage on
// amd64, containerd with runtimes (none: a plain containerd pool).
func Worker(pool string, runtimes ...gardencorev1beta1.ContainerRuntime) gardencorev1beta1.Worker {
	return gardencorev1beta1.Worker{
		Name:    pool,
		Minimum: 1, Maximum: 3,
		Machine: gardencorev1beta1.Machine{
			Type: "m", Architecture: ptr.To("amd64"),
			Image: &gardencorev1beta1.ShootMachineImage{Name: MachineImage, Version: ptr.To("1877.0.0")},
		},
		CRI: &gardencorev1beta1.CRI{Name: gardencorev1beta1.CRINameContainerD, ContainerRuntimes: runtimes},
	}
}

// GVisor is the gvisor entry of a pool's cri.containerRuntimes with providerConfig (JSON; nil for none).
func GVisor(providerConfig []byte) gardencorev1beta1.ContainerRuntime {
	r := gardencorev1beta1.ContainerRuntime{Type: "gvisor"}
	if providerConfig != nil {
		r.ProviderConfig = &runtime.RawExtension{Raw: providerConfig}
	}
	return r
}

// Shoot returns the Shoot name of project as gardener-apiserver stores it (Gardener's v1beta1 defaults applied)
// and gardenlet sees it, with status.technicalID, its namespace in the seed (shoot--<project>--<name>).
func Shoot(project, name, kubernetesVersion string, workers ...gardencorev1beta1.Worker) *gardencorev1beta1.Shoot {
	shoot := &gardencorev1beta1.Shoot{
		TypeMeta:   metav1.TypeMeta{APIVersion: gardencorev1beta1.SchemeGroupVersion.String(), Kind: "Shoot"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: gardenerutils.ProjectNamespacePrefix + project},
		Spec: gardencorev1beta1.ShootSpec{
			CloudProfile: &gardencorev1beta1.CloudProfileReference{Kind: "CloudProfile", Name: Landscape},
			Kubernetes:   gardencorev1beta1.Kubernetes{Version: kubernetesVersion},
			Provider:     gardencorev1beta1.Provider{Type: Landscape, Workers: workers},
			Region:       Landscape,
			SeedName:     ptr.To(Landscape),
		},
	}
	gardenScheme().Default(shoot)
	shoot.Status.TechnicalID = gardenerutils.ComputeTechnicalID(project, shoot)
	return shoot
}

// Namespace is the shoot's namespace in the seed, as gardenlet computes it (from status.technicalID, or for a
// Shoot without status from its project's namespace and name).
func Namespace(shoot *gardencorev1beta1.Shoot) string {
	return gardenerutils.ComputeTechnicalID(strings.TrimPrefix(shoot.Namespace, gardenerutils.ProjectNamespacePrefix), shoot)
}

// Cluster returns the Cluster gardenlet writes into the seed for shoot (named like the shoot's namespace), with
// the CloudProfile and Seed Landscape, ready to create (no resourceVersion).
func Cluster(shoot *gardencorev1beta1.Shoot) *extensionsv1alpha1.Cluster {
	c := syncedCluster(shoot)
	cluster := &extensionsv1alpha1.Cluster{}
	must("reading the synced Cluster", c.Get(context.Background(), client.ObjectKey{Name: Namespace(shoot)}, cluster))
	cluster.ResourceVersion = ""
	return cluster
}

// DecodedCluster is Cluster(shoot) as the extension library reads it (extensionscontroller.GetCluster).
func DecodedCluster(shoot *gardencorev1beta1.Shoot) *extensionscontroller.Cluster {
	cluster, err := extensionscontroller.GetCluster(context.Background(), syncedCluster(shoot), Namespace(shoot))
	must("decoding the synced Cluster", err)
	return cluster
}

// syncedCluster runs gardenlet's Cluster sync for shoot against a fresh fake seed.
func syncedCluster(shoot *gardencorev1beta1.Shoot) client.Client {
	c := fakeclient.NewClientBuilder().WithScheme(seedScheme()).Build()
	cloudProfile := &gardencorev1beta1.CloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: Landscape},
		Spec:       gardencorev1beta1.CloudProfileSpec{Type: Landscape},
	}
	seed := &gardencorev1beta1.Seed{
		ObjectMeta: metav1.ObjectMeta{Name: Landscape},
		Spec:       gardencorev1beta1.SeedSpec{Provider: gardencorev1beta1.SeedProvider{Type: Landscape, Region: Landscape}},
	}
	gardenScheme().Default(cloudProfile)
	gardenScheme().Default(seed)
	must("syncing the Cluster", gardenerextensions.SyncClusterResourceToSeed(context.Background(), c, Namespace(shoot), shoot, cloudProfile, seed))
	return c
}

var schemes struct {
	once         sync.Once
	garden, seed *runtime.Scheme
}

// gardenScheme carries Gardener's core API with its defaulting functions (what gardener-apiserver applies).
func gardenScheme() *runtime.Scheme {
	initSchemes()
	return schemes.garden
}

// seedScheme carries what a seed serves to gardenlet and the extension.
func seedScheme() *runtime.Scheme {
	initSchemes()
	return schemes.seed
}

func initSchemes() {
	schemes.once.Do(func() {
		schemes.garden = runtime.NewScheme()
		must("building the garden scheme", gardencorev1beta1.AddToScheme(schemes.garden))
		schemes.seed = runtime.NewScheme()
		must("building the seed scheme", extensionscontroller.AddToScheme(schemes.seed))
	})
}

func must(what string, err error) {
	if err != nil {
		panic(fmt.Sprintf("gardenerfixtures: %s with Gardener's code: %v", what, err))
	}
}

// ShootAccessSecret is the secret "gardener" gardenlet keeps in every shoot namespace on the seed, with a
// kubeconfig of the shoot: the health checks and the Delete's confirmation of an uninstall read the shoot through
// it. In the tests "the shoot" is the same API server, so kubeconfig is usually its admin kubeconfig.
func ShootAccessSecret(namespace string, kubeconfig []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: v1beta1constants.SecretNameGardener},
		Data:       map[string][]byte{"kubeconfig": kubeconfig},
	}
}

// ShootAccessSecrets are the two access secrets gardenlet keeps in every shoot namespace on the seed (Gardener's
// pkg/component/gardener/access deploys both): "gardener" with the shoot API server's external address and
// "gardener-internal" with its in-cluster one, which the extension library's shoot client prefers. In the tests
// both hold kubeconfig. A fixture with only "gardener" makes every shoot client cost a second Secret GET that a
// seed does not see.
func ShootAccessSecrets(namespace string, kubeconfig []byte) []*corev1.Secret {
	internal := ShootAccessSecret(namespace, kubeconfig)
	internal.Name = v1beta1constants.SecretNameGardenerInternal
	return []*corev1.Secret{ShootAccessSecret(namespace, kubeconfig), internal}
}
