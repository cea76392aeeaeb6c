// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package operatingsystemconfig_test

import (
	"strings"
	"testing"
	"time"

	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	"k8s.io/utils/ptr"

	osc "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/webhook/operatingsystemconfig/osctest"
)

// TestProofTimer: the timer re-runs the proof unit the operator's interval after the last proof (the DaemonSet
// mode's default without one), node-agent starts and enables it, and the proof unit no longer remains active
// after it ran: a timer cannot start a oneshot that is still active.
func TestProofTimer(t *testing.T) {
	for interval, want := range map[time.Duration]string{0: "OnUnitInactiveSec=300s", 10 * time.Second: "OnUnitInactiveSec=10s", 90 * time.Minute: "OnUnitInactiveSec=5400s"} {
		out := mutate(t, newEnsurer(t, osc.Options{ReproveInterval: interval}), true, osctest.OSC(osctest.GVisorPool), nil)
		timer := unit(t, out.Spec.Units, osc.ProofTimerName)
		if !strings.Contains(*timer.Content, "\n"+want+"\n") || !strings.Contains(*timer.Content, "\nAccuracySec=1s\n") {
			t.Errorf("interval %s: the timer lacks %s or AccuracySec=1s:\n%s", interval, want, *timer.Content)
		}
		if ptr.Deref(timer.Command, "") != extensionsv1alpha1.CommandStart || !ptr.Deref(timer.Enable, false) {
			t.Errorf("interval %s: the timer is not started and enabled: command %v, enable %v", interval, timer.Command, timer.Enable)
		}
		if proof := unit(t, out.Spec.Units, osc.ProofUnitName); strings.Contains(*proof.Content, "RemainAfterExit") {
			t.Errorf("the proof unit remains after exit, so its timer cannot start it again:\n%s", *proof.Content)
		}
	}
}

func unit(t *testing.T, units []extensionsv1alpha1.Unit, name string) extensionsv1alpha1.Unit {
	t.Helper()
	for _, u := range units {
		if u.Name == name && u.Content != nil {
			return u
		}
	}
	t.Fatalf("the OSC has no unit %s with content: %v", name, units)
	return extensionsv1alpha1.Unit{}
}
