// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gardenerfixtures

import (
	"context"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/gardener/gardener/imagevector"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/component/extensions/operatingsystemconfig"
	"github.com/gardener/gardener/pkg/component/extensions/operatingsystemconfig/original/components/nodeagent"
	gardenletfeatures "github.com/gardener/gardener/pkg/gardenlet/features"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"
	imagevectorutils "github.com/gardener/gardener/pkg/utils/imagevector"
	fakesecretsmanager "github.com/gardener/gardener/pkg/utils/secrets/manager/fake"
)

// PoolOSCs are a worker pool's OperatingSystemConfigs in the seed as gardenlet writes them, and the name of the
// pool's OSC secret in the shoot (the pool's key: what the Nodes' label
// worker.gardener.cloud/gardener-node-agent-secret-name names).
type PoolOSCs struct {
	// Provision is the OSC of purpose provision (<key>-init).
	Provision *extensionsv1alpha1.OperatingSystemConfig
	// Reconcile is the OSC of purpose reconcile (<key>-original), the one the extension's webhook mutates.
	Reconcile *extensionsv1alpha1.OperatingSystemConfig
	// SecretName is the pool's key.
	SecretName string
}

// OperatingSystemConfigs returns, per worker pool of shoot, the OperatingSystemConfigs gardenlet's component
// (pkg/component/extensions/operatingsystemconfig, Deploy) writes into the shoot's namespace: name, labels,
// annotations, purpose, type, criConfig and gardenlet's own units and files; ready to create (no
// resourceVersion), with no status (the OS extension writes that).
func OperatingSystemConfigs(shoot *gardencorev1beta1.Shoot) map[string]PoolOSCs {
	ctx := context.Background()
	namespace := Namespace(shoot)
	c := fakeclient.NewClientBuilder().WithScheme(seedScheme()).WithStatusSubresource(&extensionsv1alpha1.OperatingSystemConfig{}).Build()
	// The CAs gardenlet's secrets manager holds; the fake one hands out whatever secret of that name exists.
	for _, name := range []string{v1beta1constants.SecretNameCACluster, v1beta1constants.SecretNameCAKubelet} {
		must("creating the CA secrets", c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}))
	}
	component := operatingsystemconfig.New(logr.Discard(), c, fakesecretsmanager.New(c, namespace), oscValues(shoot),
		time.Millisecond, time.Millisecond, time.Millisecond)

	registerGardenletFeatures()
	gardenletClock.Lock()
	restore := operatingsystemconfig.TimeNow
	operatingsystemconfig.TimeNow = func() time.Time { return Timestamp }
	err := component.Deploy(ctx)
	operatingsystemconfig.TimeNow = restore
	gardenletClock.Unlock()
	must("deploying the OperatingSystemConfigs", err)

	out := map[string]PoolOSCs{}
	for pool, data := range component.WorkerPoolNameToOperatingSystemConfigsMap() {
		out[pool] = PoolOSCs{
			Provision:  stored(ctx, c, data.Init.Object),
			Reconcile:  stored(ctx, c, data.Original.Object),
			SecretName: data.Original.GardenerNodeAgentSecretName,
		}
	}
	return out
}

// oscValues are the values gardenlet's botanist gives its OperatingSystemConfig component for shoot, as far as
// they shape what the extension reads (names, labels, criConfig); images from Gardener's own image vector.
func oscValues(shoot *gardencorev1beta1.Shoot) *operatingsystemconfig.Values {
	images := map[string]*imagevectorutils.Image{}
	for _, name := range []string{imagevector.ContainerImageNameGardenerNodeAgent, imagevector.ContainerImageNamePauseContainer} {
		image, err := imagevector.Containers().FindImage(name)
		must("finding image "+name+" in Gardener's image vector", err)
		images[name] = image
	}
	return &operatingsystemconfig.Values{
		Namespace:         Namespace(shoot),
		KubernetesVersion: semver.MustParse(shoot.Spec.Kubernetes.Version),
		Workers:           shoot.Spec.Provider.Workers,
		InitValues:        operatingsystemconfig.InitValues{APIServerURL: "https://api." + shoot.Name + "." + Landscape},
		OriginalValues: operatingsystemconfig.OriginalValues{
			Images:              images,
			KubeletConfig:       shoot.Spec.Kubernetes.Kubelet,
			ClusterDomain:       gardencorev1beta1.DefaultDomain,
			ClusterDNSAddresses: []string{"10.0.0.10"},
			KubeProxyEnabled:    true,
			PrimaryIPFamily:     gardencorev1beta1.IPFamilyIPv4,
			Region:              &shoot.Spec.Region,
		},
	}
}

// stored is obj as the fake seed stored it, without resourceVersion.
func stored(ctx context.Context, c client.Client, obj *extensionsv1alpha1.OperatingSystemConfig) *extensionsv1alpha1.OperatingSystemConfig {
	out := &extensionsv1alpha1.OperatingSystemConfig{}
	must("reading OperatingSystemConfig "+obj.Name, c.Get(ctx, client.ObjectKeyFromObject(obj), out))
	out.ResourceVersion = ""
	return out
}

var gardenletFeatures sync.Once

// registerGardenletFeatures registers gardenlet's feature gates (its OSC component asks them), once per process.
func registerGardenletFeatures() {
	gardenletFeatures.Do(gardenletfeatures.RegisterFeatureGates)
}

// OSCSecret returns the pool's OSC secret gardenlet puts into the shoot's kube-system for osc
// (nodeagent.OperatingSystemConfigSecret, as the botanist calls it): named secretName (PoolOSCs.SecretName),
// labelled with the OSC role and the pool, osc's node-agent relevant part in data key osc.yaml, its checksum in
// annotation checksum/data-script. seed resolves osc's secret references (nil when it has none).
func OSCSecret(seed client.Client, osc *extensionsv1alpha1.OperatingSystemConfig, secretName, pool string) *corev1.Secret {
	secret, err := nodeagent.OperatingSystemConfigSecret(context.Background(), seed, osc, secretName, pool, true)
	must("computing the OSC secret", err)
	return secret
}

// NodeLabels are the labels gardenlet gives the kubelet of every Node of worker (--node-labels,
// gardenerutils.NodeLabelsForWorkerPool) whose machine boots from the pool's OSC secret secretName, in shoot.
func NodeLabels(shoot *gardencorev1beta1.Shoot, worker gardencorev1beta1.Worker, secretName string) map[string]string {
	return gardenerutils.NodeLabelsForWorkerPool(worker, false, secretName, shoot.Spec.Region)
}

// Node returns the Node name of worker pool pool of shoot as its kubelet registers it on a machine of the pool's
// current key: gardenlet's labels (NodeLabels) and the kubelet's own hostname and OS labels.
func Node(shoot *gardencorev1beta1.Shoot, pool, name string) *corev1.Node {
	for _, w := range shoot.Spec.Provider.Workers {
		if w.Name != pool {
			continue
		}
		labels := NodeLabels(shoot, w, OperatingSystemConfigs(shoot)[pool].SecretName)
		labels[corev1.LabelHostname], labels[corev1.LabelOSStable] = name, "linux"
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	}
	panic("gardenerfixtures: shoot " + shoot.Name + " has no worker pool " + pool)
}
