// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	osc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
)

// patched is gardenlet's next write of the gVisor pool's OSC as the API server hands it to the webhook: its fresh
// labels and spec merged into the stored object, so the stored object's other labels (ours) are kept.
func patched(stored *extensionsv1alpha1.OperatingSystemConfig) *extensionsv1alpha1.OperatingSystemConfig {
	o := osctest.OSC(osctest.GVisorPool)
	for k, v := range stored.Labels {
		if _, ok := o.Labels[k]; !ok {
			o.Labels[k] = v
		}
	}
	return o
}

func selects(t *testing.T, mode delivery.Mode, o *extensionsv1alpha1.OperatingSystemConfig) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(osc.ObjectSelector(mode))
	if err != nil {
		t.Fatal(err)
	}
	return s.Matches(labels.Set(o.Labels))
}

// TestEntryLabel: an OSC carries LabelEntry exactly while it carries an entry of ours, through add, remove and the
// drop of the remove entry; so the DaemonSet mode's object selector sends the webhook exactly the OSCs it has to
// change (and the update that drops the label, by its old object), and the OperatingSystemConfig mode's every
// pool's OSC.
func TestEntryLabel(t *testing.T) {
	oscMode, ds := newEnsurer(t, osc.Options{}), newEnsurer(t, osc.Options{DeliveryMode: delivery.DaemonSet})
	installed := stored(mutate(t, oscMode, true, osctest.OSC(osctest.GVisorPool), nil), 1)
	removed := stored(mutate(t, ds, true, patched(installed), installed), 2)
	dropped := mutateFrom(t, ds, true, patched(removed), removed, record(t, removed))
	other := mutate(t, oscMode, true, osctest.OSC(osctest.OtherPool), nil)

	for name, tc := range map[string]struct {
		o         *extensionsv1alpha1.OperatingSystemConfig
		wantLabel bool
	}{
		"add (OperatingSystemConfig mode)":      {installed, true},
		"remove (switched to the DaemonSet)":    {removed, true},
		"remove entry dropped (every node did)": {dropped, false},
		"pool without gVisor":                   {other, false},
	} {
		if _, got := tc.o.Labels[osc.LabelEntry]; got != tc.wantLabel {
			t.Errorf("%s: label %s present %v, want %v (labels %v)", name, osc.LabelEntry, got, tc.wantLabel, tc.o.Labels)
		}
		if got := selects(t, delivery.DaemonSet, tc.o); got != tc.wantLabel {
			t.Errorf("%s: selected by the DaemonSet mode's object selector: %v, want %v", name, got, tc.wantLabel)
		}
		if !selects(t, delivery.OperatingSystemConfig, tc.o) || !selects(t, "", tc.o) {
			t.Errorf("%s: a pool's OSC not selected in the OperatingSystemConfig mode", name)
		}
	}
	if osc.RemovalOnly(dropped) || !osc.RemovalOnly(removed) {
		t.Fatalf("want the remove entry in the removed OSC and gone in the dropped one")
	}
	// The update that drops the label still reaches the webhook in the DaemonSet mode: its old object has it.
	if !selects(t, delivery.DaemonSet, removed) {
		t.Error("the stored OSC carrying the remove entry is not selected in the DaemonSet mode")
	}
	// Not a worker pool's OSC: selected in neither mode, whatever else it carries.
	bare := &extensionsv1alpha1.OperatingSystemConfig{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{osc.LabelEntry: "true"}}}
	if selects(t, delivery.DaemonSet, bare) || selects(t, delivery.OperatingSystemConfig, bare) {
		t.Error("an OSC without the worker pool label is selected")
	}
}
