// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	gvisorv1alpha1 "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// Dropping the remove entry (docs/delivery-modes.md, "OperatingSystemConfig → DaemonSet"). The remove entry is
// sticky (doc.go) because the webhook alone cannot know whether every node has applied it. The ContainerRuntime
// controller can: once every node of the pool has applied an OSC with our remove entry and none of our files, it
// records in the pool's ContainerRuntime status.providerStatus the UID and metadata.generation of the seed OSC it
// saw (gvisorv1alpha1.ContainerRuntimeStatus, the API of this extension's provider status). At the next update of exactly that OSC version (old.UID and old.Generation equal the record:
// its spec did not change since, so nothing of gVisor reached a node again) the webhook drops the remove entry.
// Any later change of the OSC spec (the webhook adding gVisor again after a switch back) bumps the generation, so
// a stale record never matches; a missing or deleted ContainerRuntime keeps the remove entry.

// NewRemovalStatus returns the providerStatus recording that every node applied the removal of osc as it is now.
func NewRemovalStatus(osc *extensionsv1alpha1.OperatingSystemConfig) *runtime.RawExtension {
	return gvisorv1alpha1.NewStatus(osc.UID, osc.Generation)
}

// RemovalStatusOf decodes cr's status.providerStatus (gvisorv1alpha1.ContainerRuntimeStatus); nil when there is
// none or it is not one.
func RemovalStatusOf(cr *extensionsv1alpha1.ContainerRuntime) (*gvisorv1alpha1.ContainerRuntimeStatus, error) {
	if cr == nil {
		return nil, nil
	}
	s, err := gvisorv1alpha1.StatusOf(cr.Status.ProviderStatus)
	if err != nil {
		return nil, fmt.Errorf("ContainerRuntime %s/%s: %w", cr.Namespace, cr.Name, err)
	}
	return s, nil
}

// recordsExactly reports whether s records exactly old's version.
func recordsExactly(s *gvisorv1alpha1.ContainerRuntimeStatus, old *extensionsv1alpha1.OperatingSystemConfig) bool {
	return s != nil && old != nil && s.RemovalAppliedOSCUID != "" && s.RemovalAppliedOSCUID == old.UID &&
		s.RemovalAppliedAtGeneration == old.Generation
}

// RemovalOnly reports whether osc carries of ours only the remove entry: one entry at PluginPath with op remove,
// none of our files (spec.files, status.extensionFiles) and not our unit.
func RemovalOnly(osc *extensionsv1alpha1.OperatingSystemConfig) bool {
	if osc == nil || osc.Spec.CRIConfig == nil || osc.Spec.CRIConfig.Containerd == nil {
		return false
	}
	var entries []extensionsv1alpha1.PluginConfig
	for _, p := range osc.Spec.CRIConfig.Containerd.Plugins {
		if isOurPlugin(p) {
			entries = append(entries, p)
		}
	}
	if len(entries) != 1 || entries[0].Op == nil || *entries[0].Op != extensionsv1alpha1.RemovePluginPathOperation {
		return false
	}
	ours := defaultOwnership()
	isOurFile := func(f extensionsv1alpha1.File) bool { return ours.ownsFile(f.Path) }
	return !slices.ContainsFunc(osc.Spec.Files, isOurFile) && !slices.ContainsFunc(osc.Status.ExtensionFiles, isOurFile) &&
		!slices.ContainsFunc(osc.Spec.Units, func(u extensionsv1alpha1.Unit) bool { return slices.Contains(ours.units, u.Name) })
}

// mayDropRemoval reports whether the update from old may leave out the remove entry: the pool is not delivered
// through the OSC (the removal path), old carries only the remove entry, and removal records exactly old.
func mayDropRemoval(removal *gvisorv1alpha1.ContainerRuntimeStatus, old *extensionsv1alpha1.OperatingSystemConfig) bool {
	return RemovalOnly(old) && recordsExactly(removal, old)
}

// ReadRemovalStatus reads, through reader (the API server, not a cache: a stale record must not be missed, and
// only what the controller wrote last counts), the ContainerRuntimeStatus of the pool's gvisor ContainerRuntime in old's
// namespace, when the update from old could drop the remove entry at all (old carries only it); nil otherwise, and
// when the pool has no gvisor ContainerRuntime (gVisor left the pool: the remove entry stays).
func ReadRemovalStatus(ctx context.Context, reader client.Reader, old *extensionsv1alpha1.OperatingSystemConfig) (*gvisorv1alpha1.ContainerRuntimeStatus, error) {
	pool := ""
	if old != nil {
		pool = old.Labels[v1beta1constants.LabelWorkerPool]
	}
	if pool == "" || !RemovalOnly(old) {
		return nil, nil
	}
	cr, err := poolContainerRuntime(ctx, reader, old.Namespace, pool)
	if err != nil || cr == nil {
		return nil, err
	}
	s, err := RemovalStatusOf(cr)
	if err != nil {
		// Not the webhook's to fail on (it would block every write of the pool's OSC): without a readable record
		// the remove entry stays, which is safe; the controller overwrites the record when it next sees every
		// node apply the removal.
		return nil, nil //nolint:nilerr // an unreadable record is no record, never a failed OSC write
	}
	return s, nil
}

// poolContainerRuntime returns the ContainerRuntime of type gvisor whose spec.workerPool.name is pool in namespace,
// nil if there is none or more than one. It matches the spec instead of guessing the name: gardenlet names it
// <type>-<pool> (getContainerRuntimeName in Gardener's pkg/component/extensions/containerruntime), but that is an
// unexported detail of gardenlet, while spec.type and spec.workerPool.name are the API the controller itself reads
// the pool from. The list is short (one object per pool and runtime type) and read only while an OSC carries
// nothing of ours but the remove entry, during a switch to the DaemonSet.
func poolContainerRuntime(ctx context.Context, reader client.Reader, namespace, pool string) (*extensionsv1alpha1.ContainerRuntime, error) {
	list := &extensionsv1alpha1.ContainerRuntimeList{}
	if err := reader.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing the ContainerRuntimes in %s to find worker pool %q's (its status.providerStatus says whether every node applied the remove entry): %w", namespace, pool, err)
	}
	var found *extensionsv1alpha1.ContainerRuntime
	for i := range list.Items {
		if cr := &list.Items[i]; cr.Spec.Type == render.Type && cr.Spec.WorkerPool.Name == pool {
			if found != nil {
				// Gardenlet writes one per pool and type; of two, neither record can be trusted to be the pool's:
				// the remove entry stays.
				return nil, nil
			}
			found = cr
		}
	}
	return found, nil
}
