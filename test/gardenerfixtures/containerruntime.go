// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gardenerfixtures

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"github.com/gardener/gardener/pkg/component/extensions/containerruntime"
)

// gardenletClock serializes the runs of gardenlet's components: their clocks (TimeNow) are package variables,
// set to Timestamp while one runs.
var gardenletClock sync.Mutex

// ContainerRuntimes returns the ContainerRuntimes gardenlet writes into namespace for workers (its ContainerRuntime
// component's Deploy, or Restore from an empty ShootState for operation restore), sorted by name, ready to create
// (no resourceVersion). operation is the gardener.cloud/operation annotation they carry: reconcile (Deploy),
// restore, or "" for none (as once the extension library picked the object up).
func ContainerRuntimes(namespace string, operation string, workers ...gardencorev1beta1.Worker) []*extensionsv1alpha1.ContainerRuntime {
	ctx := context.Background()
	c := fakeclient.NewClientBuilder().WithScheme(seedScheme()).WithStatusSubresource(&extensionsv1alpha1.ContainerRuntime{}).Build()
	component := containerruntime.New(logr.Discard(), c, &containerruntime.Values{Namespace: namespace, Workers: workers},
		time.Millisecond, time.Millisecond, time.Millisecond)

	gardenletClock.Lock()
	restore := containerruntime.TimeNow
	containerruntime.TimeNow = func() time.Time { return Timestamp }
	var err error
	if operation == v1beta1constants.GardenerOperationRestore {
		err = component.Restore(ctx, &gardencorev1beta1.ShootState{})
	} else {
		err = component.Deploy(ctx)
	}
	containerruntime.TimeNow = restore
	gardenletClock.Unlock()
	must("deploying the ContainerRuntimes", err)

	list := &extensionsv1alpha1.ContainerRuntimeList{}
	must("listing the ContainerRuntimes", c.List(ctx, list, client.InNamespace(namespace)))
	out := make([]*extensionsv1alpha1.ContainerRuntime, 0, len(list.Items))
	for i := range list.Items {
		cr := &list.Items[i]
		cr.ResourceVersion = ""
		if operation == "" {
			delete(cr.Annotations, v1beta1constants.GardenerOperation)
		}
		out = append(out, cr)
	}
	slices.SortFunc(out, func(a, b *extensionsv1alpha1.ContainerRuntime) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// ContainerRuntime returns the gvisor ContainerRuntime gardenlet writes into namespace for worker pool pool with
// providerConfig (JSON; nil for none), carrying operation (see ContainerRuntimes).
func ContainerRuntime(namespace, pool string, providerConfig []byte, operation string) *extensionsv1alpha1.ContainerRuntime {
	return ContainerRuntimes(namespace, operation, Worker(pool, GVisor(providerConfig)))[0]
}

// ContainerRuntimeKey is where gardenlet writes the gvisor ContainerRuntime of pool in namespace.
func ContainerRuntimeKey(namespace, pool string) client.ObjectKey {
	return client.ObjectKeyFromObject(ContainerRuntime(namespace, pool, nil, ""))
}
