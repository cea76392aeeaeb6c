// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

// TestStatus: the provider status is written under the provider configuration's own API group and read back; a
// record an earlier version of the extension wrote under its old group still reads (a seed keeps it across the
// upgrade); anything else in status.providerStatus is no record.
func TestStatus(t *testing.T) {
	written := v1alpha1.NewStatus("uid-1", 7)
	if want := `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"ContainerRuntimeStatus","removalAppliedOSCUID":"uid-1","removalAppliedAtGeneration":7}`; string(written.Raw) != want {
		t.Errorf("NewStatus = %s, want %s", written.Raw, want)
	}
	for name, c := range map[string]struct {
		raw  string
		want bool
	}{
		"written":       {string(written.Raw), true},
		"earlier group": {`{"apiVersion":"gvisor.runtime.extensions.gardener.cloud/v1alpha1","kind":"ContainerRuntimeStatus","removalAppliedOSCUID":"uid-1","removalAppliedAtGeneration":7}`, true},
		"another kind":  {`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration"}`, false},
		"another group": {`{"apiVersion":"example.com/v1","kind":"ContainerRuntimeStatus","removalAppliedOSCUID":"uid-1"}`, false},
	} {
		s, err := v1alpha1.StatusOf(&runtime.RawExtension{Raw: []byte(c.raw)})
		if err != nil || (s != nil) != c.want || (c.want && (s.RemovalAppliedOSCUID != "uid-1" || s.RemovalAppliedAtGeneration != 7)) {
			t.Errorf("%s: StatusOf = %+v, %v; want a record: %v", name, s, err, c.want)
		}
	}
	if s, err := v1alpha1.StatusOf(&runtime.RawExtension{Raw: []byte(`[`)}); s != nil || err == nil {
		t.Errorf("StatusOf(broken JSON) = %+v, %v; want an error", s, err)
	}
	if s, err := v1alpha1.StatusOf(nil); s != nil || err != nil {
		t.Errorf("StatusOf(nil) = %+v, %v; want no record", s, err)
	}
}
