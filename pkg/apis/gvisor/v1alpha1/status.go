// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// StatusKind is the kind of what the extension writes into a ContainerRuntime's status.providerStatus, under
// APIVersion: the provider configuration's API group holds the provider status too, as Gardener's provider
// extensions keep theirs (InfrastructureConfig and InfrastructureStatus in one group).
const StatusKind = "ContainerRuntimeStatus"

// LegacyStatusAPIVersion is the apiVersion earlier versions of this extension wrote ContainerRuntimeStatus under, a
// group of no API package. StatusOf still reads it (a seed keeps a record across the extension's upgrade); nothing
// writes it.
const LegacyStatusAPIVersion = "gvisor.runtime.extensions.gardener.cloud/v1alpha1"

// ContainerRuntimeStatus is a ContainerRuntime's status.providerStatus. The controller writes it, in the
// OperatingSystemConfig delivery mode's removal, and the OSC webhook reads it (pkg/webhook/operatingsystemconfig,
// removal.go): the seed OSC (UID, metadata.generation) whose remove entry every node of the pool had applied when
// the controller looked.
type ContainerRuntimeStatus struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// RemovalAppliedOSCUID is the UID of the pool's reconcile OSC.
	RemovalAppliedOSCUID types.UID `json:"removalAppliedOSCUID"`
	// RemovalAppliedAtGeneration is that OSC's metadata.generation.
	RemovalAppliedAtGeneration int64 `json:"removalAppliedAtGeneration"`
}

// NewStatus is the providerStatus recording that every node applied the removal in the OSC with uid at generation.
func NewStatus(uid types.UID, generation int64) *runtime.RawExtension {
	raw, _ := json.Marshal(ContainerRuntimeStatus{ // a struct of strings and an int64 always marshals
		APIVersion: APIVersion, Kind: StatusKind, RemovalAppliedOSCUID: uid, RemovalAppliedAtGeneration: generation,
	})
	return &runtime.RawExtension{Raw: raw}
}

// StatusOf decodes a status.providerStatus; nil when there is none or it is not a ContainerRuntimeStatus (of
// APIVersion or LegacyStatusAPIVersion).
func StatusOf(providerStatus *runtime.RawExtension) (*ContainerRuntimeStatus, error) {
	if providerStatus == nil || len(providerStatus.Raw) == 0 {
		return nil, nil
	}
	s := &ContainerRuntimeStatus{}
	if err := json.Unmarshal(providerStatus.Raw, s); err != nil {
		return nil, fmt.Errorf("decoding status.providerStatus (want kind %s, %s): %w", StatusKind, APIVersion, err)
	}
	if (s.APIVersion != APIVersion && s.APIVersion != LegacyStatusAPIVersion) || s.Kind != StatusKind {
		return nil, nil
	}
	return s, nil
}
