// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	gardenerutils "github.com/gardener/gardener/pkg/utils/gardener"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
)

// Shoot is what gardenlet keeps on the seed for one shoot with a gVisor pool: its namespace, its Cluster, the
// shoot access secret, and the pool's ContainerRuntime.
type Shoot struct {
	Namespace        *corev1.Namespace
	Cluster          *extensionsv1alpha1.Cluster
	ContainerRuntime *extensionsv1alpha1.ContainerRuntime
	// Worker is the gVisor pool of the Cluster's shoot.
	Worker gardencorev1beta1.Worker
}

// LoadShoot reads the shoot namespace and Cluster from clusterFile (example/seed/cluster.yaml) and the
// ContainerRuntime from containerRuntimeFile (example/containerruntime.yaml), and sets the shoot's Kubernetes
// version to the node's (the kubelet's version is the shoot's on a real node).
func LoadShoot(clusterFile, containerRuntimeFile, kubernetesVersion string) (*Shoot, error) {
	s := &Shoot{Namespace: &corev1.Namespace{}, Cluster: &extensionsv1alpha1.Cluster{}, ContainerRuntime: &extensionsv1alpha1.ContainerRuntime{}}
	if err := decodeFile(clusterFile, s.Namespace, s.Cluster); err != nil {
		return nil, err
	}
	if err := decodeFile(containerRuntimeFile, s.ContainerRuntime); err != nil {
		return nil, err
	}
	var shoot gardencorev1beta1.Shoot
	if err := json.Unmarshal(s.Cluster.Spec.Shoot.Raw, &shoot); err != nil {
		return nil, fmt.Errorf("%s: the Cluster's shoot: %w", clusterFile, err)
	}
	shoot.Spec.Kubernetes.Version = kubernetesVersion
	raw, err := json.Marshal(&shoot)
	if err != nil {
		return nil, err
	}
	s.Cluster.Spec.Shoot.Raw = raw
	for _, w := range shoot.Spec.Provider.Workers {
		if w.Name == s.ContainerRuntime.Spec.WorkerPool.Name {
			s.Worker = w
			return s, nil
		}
	}
	return nil, fmt.Errorf("%s has no worker pool %q, which the ContainerRuntime of %s names", clusterFile, s.ContainerRuntime.Spec.WorkerPool.Name, containerRuntimeFile)
}

// GardenerShoot is the Cluster's shoot.
func (s *Shoot) GardenerShoot() (*gardencorev1beta1.Shoot, error) {
	var shoot gardencorev1beta1.Shoot
	if err := json.Unmarshal(s.Cluster.Spec.Shoot.Raw, &shoot); err != nil {
		return nil, fmt.Errorf("the Cluster's shoot: %w", err)
	}
	return &shoot, nil
}

// NodeLabels are the labels the pool's nodes carry on a Gardener shoot (Gardener's NodeLabelsForWorkerPool).
func (s *Shoot) NodeLabels() map[string]string {
	return gardenerutils.NodeLabelsForWorkerPool(s.Worker, false, "gardener-node-agent-"+s.Worker.Name, "")
}

// Create writes the namespace (labelled as gardenlet does), the Cluster and the shoot access secret "gardener" (a kubeconfig of the node's API
// server, which is also the shoot's), as gardenlet does before it creates extension resources.
func (s *Shoot) Create(ctx context.Context, n *kubenode.Node) error {
	c := n.Client()
	kubeconfig, err := n.Kubeconfig("shoot-access", "gardener", "system:masters")
	if err != nil {
		return err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace.Name, Name: v1beta1constants.SecretNameGardener},
		Data:       map[string][]byte{"kubeconfig": kubeconfig},
	}
	ns := s.Namespace.DeepCopy()
	// gardenlet labels every shoot namespace so: the namespace selector of seed webhooks (the OSC webhook's).
	metav1.SetMetaDataLabel(&ns.ObjectMeta, v1beta1constants.GardenRole, v1beta1constants.GardenRoleShoot)
	for _, obj := range []client.Object{ns, s.Cluster.DeepCopy(), secret} {
		if err := c.Create(ctx, obj); err != nil {
			return fmt.Errorf("creating %T %s: %w", obj, obj.GetName(), err)
		}
	}
	return nil
}

// CreateContainerRuntime creates the pool's ContainerRuntime with the operation annotation reconcile, as gardenlet
// does (the extension chart's controller reconciles only annotated objects).
func (s *Shoot) CreateContainerRuntime(ctx context.Context, n *kubenode.Node) error {
	cr := s.ContainerRuntime.DeepCopy()
	metav1.SetMetaDataAnnotation(&cr.ObjectMeta, v1beta1constants.GardenerOperation, v1beta1constants.GardenerOperationReconcile)
	if err := n.Client().Create(ctx, cr); err != nil {
		return fmt.Errorf("creating the ContainerRuntime %s: %w", cr.Name, err)
	}
	return nil
}

// decodeFile decodes the YAML documents of file into objs, in order.
func decodeFile(file string, objs ...any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	dec := utilyaml.NewYAMLReader(bufioReader(data))
	for i, obj := range objs {
		doc, err := dec.Read()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s has %d documents, want %d", file, i, len(objs))
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return fmt.Errorf("%s, document %d: %w", file, i+1, err)
		}
	}
	return nil
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }
