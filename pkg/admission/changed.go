// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"reflect"
	"slices"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// gvisorPart is what of a worker this admission judges: the CRI name and the providerConfigs of its gvisor
// container runtimes, in order. Two workers with equal parts get the same verdict, so an update that leaves a
// worker's part as it was must not be refused for it (it was accepted before, perhaps before this admission or
// one of its rules existed).
type gvisorPart struct {
	criName string
	configs []any
}

// partOf returns the worker's gvisorPart, or false when the worker has no gvisor container runtime.
// providerConfigs are compared as parsed JSON (key order and spacing do not count as a change); one that does
// not parse, or is larger than v1alpha1.MaxProviderConfigBytes, is compared by its SHA-256: the comparison costs
// at most the limit's parse whatever the request's size (v1alpha1.Parse refuses an oversized one anyway).
func partOf(w *gardencorev1beta1.Worker) (gvisorPart, bool) {
	if w.CRI == nil {
		return gvisorPart{}, false
	}
	p := gvisorPart{criName: string(w.CRI.Name)}
	found := false
	for _, cr := range w.CRI.ContainerRuntimes {
		if cr.Type != ContainerRuntimeType {
			continue
		}
		found = true
		var raw []byte
		if cr.ProviderConfig != nil {
			raw = bytes.TrimSpace(cr.ProviderConfig.Raw)
		}
		var parsed any
		switch {
		case len(raw) == 0:
			p.configs = append(p.configs, nil)
		case len(raw) <= v1alpha1.MaxProviderConfigBytes && json.Unmarshal(raw, &parsed) == nil:
			p.configs = append(p.configs, parsed)
		default:
			p.configs = append(p.configs, sha256.Sum256(raw))
		}
	}
	return p, found
}

// hasGVisor reports whether the worker has a gvisor container runtime, without parsing anything (partOf parses
// the providerConfigs, which only an update's comparison needs).
func hasGVisor(w *gardencorev1beta1.Worker) bool {
	return w.CRI != nil && slices.ContainsFunc(w.CRI.ContainerRuntimes, func(cr gardencorev1beta1.ContainerRuntime) bool {
		return cr.Type == ContainerRuntimeType
	})
}

// oldWorkers indexes the old Shoot's workers by name (the first of a name, as gardener-apiserver refuses
// duplicates before any webhook sees the Shoot), so that matching a Shoot's workers costs their number, not its
// square. A nil old Shoot gives an empty index: every worker counts as changed.
func oldWorkers(old *gardencorev1beta1.Shoot) map[string]*gardencorev1beta1.Worker {
	if old == nil {
		return nil
	}
	byName := make(map[string]*gardencorev1beta1.Worker, len(old.Spec.Provider.Workers))
	for i := range old.Spec.Provider.Workers {
		if _, dup := byName[old.Spec.Provider.Workers[i].Name]; !dup {
			byName[old.Spec.Provider.Workers[i].Name] = &old.Spec.Provider.Workers[i]
		}
	}
	return byName
}

// unchanged reports whether worker w of the new Shoot has the same gvisorPart as the old Shoot's worker of the
// same name (old is oldWorkers' index). A worker that is new, or newly has gvisor, counts as changed.
func unchanged(w *gardencorev1beta1.Worker, old map[string]*gardencorev1beta1.Worker) bool {
	ow, found := old[w.Name]
	if !found {
		return false
	}
	now, _ := partOf(w)
	before, had := partOf(ow)
	return had && reflect.DeepEqual(before, now)
}
