// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/gardener/gardener/pkg/apis/resources/v1alpha1"
	"github.com/gardener/gardener/pkg/utils/managedresources"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controller/containerruntime"
)

// configureCache sets what the manager's informers keep of the objects they cache (Clusters, ContainerRuntimes,
// ManagedResources, the heartbeat Lease), so that the controller's memory does not grow with what it never reads.
// Measured at seed scale in BENCHMARKS.md ("Seed scale: 150 pools"). Call it after the other cache options are set:
// it adds to ByObject.
//
//   - managedFields are dropped from every cached object: nothing of the controller, of Gardener's extension
//     library or of its health-check library reads them (they are the API server's field ownership records,
//     often larger than the object's spec).
//   - a Cluster keeps its Shoot and Seed, but its CloudProfile shrinks to apiVersion, kind, name and provider
//     type (transformCluster).
//   - ManagedResources are cached only when their origin label is ours or the field's extension's
//     (managedResourceSelector): a seed holds the ManagedResources of every component of every shoot, some twenty
//     per shoot, and the controller, its health checks and its watch read only its own. Every status update
//     gardener-resource-manager makes to another component's ManagedResource would otherwise be a watch event this
//     process decodes and caches. A ManagedResource of our name without the label is read live where it matters
//     (deploy.go, managedResourceWrites; deletion reads a cache miss live, delete_requeue.go).
func configureCache(opts *manager.Options) {
	opts.Cache.DefaultTransform = cache.TransformStripManagedFields()
	if opts.Cache.ByObject == nil {
		opts.Cache.ByObject = map[client.Object]cache.ByObject{}
	}
	cluster := opts.Cache.ByObject[&extensionsv1alpha1.Cluster{}]
	cluster.Transform = transformCluster
	opts.Cache.ByObject[&extensionsv1alpha1.Cluster{}] = cluster
	mr := opts.Cache.ByObject[&resourcesv1alpha1.ManagedResource{}]
	mr.Label = managedResourceSelector()
	opts.Cache.ByObject[&resourcesv1alpha1.ManagedResource{}] = mr
}

// managedResourceSelector selects the ManagedResources this controller reads: origin runtime-gvisor (ours) or
// extension-runtime-gvisor (the field's extension's, taken over under the same names).
func managedResourceSelector() labels.Selector {
	req, err := labels.NewRequirement(managedresources.LabelKeyOrigin, selection.In, []string{containerruntime.Origin, containerruntime.FieldOrigin})
	if err != nil {
		panic(fmt.Sprintf("building the ManagedResource cache selector: %v", err)) // constant input
	}
	return labels.NewSelector().Add(*req)
}

// transformCluster is the cache transform of Clusters. A Cluster holds the shoot's whole CloudProfile (on a real
// landscape 100 KB and more: every machine image version, machine type, region and the provider's image mapping),
// and every shoot namespace has one. Neither the controller, nor the extension library (containerruntime and
// healthcheck reconcilers) nor the OperatingSystemConfig webhook reads the CloudProfile (the pool's architecture and
// the Kubernetes version come from the Shoot), yet the library's GetCluster decodes it on every reconcile and
// health check. A Cluster whose CloudProfile cannot be parsed is cached as it came, so that the library reports
// the decode error as before. Other objects (the informer's tombstones) pass unchanged.
var _ toolscache.TransformFunc = transformCluster

func transformCluster(in any) (any, error) {
	c, ok := in.(*extensionsv1alpha1.Cluster)
	if !ok {
		return in, nil
	}
	c.ManagedFields = nil
	if raw := c.Spec.CloudProfile.Raw; len(raw) > 0 {
		if head, err := cloudProfileHead(raw); err == nil {
			c.Spec.CloudProfile.Raw = head
		}
	}
	c.Spec.CloudProfile.Object = nil
	return c, nil
}

// cloudProfileHead returns the CloudProfile JSON reduced to apiVersion, kind, metadata.name and spec.type: still
// a CloudProfile the library decodes, naming the same profile and provider.
func cloudProfileHead(raw []byte) ([]byte, error) {
	var head struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
		Metadata   struct {
			Name string `json:"name,omitempty"`
		} `json:"metadata"`
		Spec struct {
			Type string `json:"type,omitempty"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	return json.Marshal(head)
}
