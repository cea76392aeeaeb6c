// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerruntime

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// TestDaemonSetUninstalled walks the DaemonSet states a Delete can meet in the shoot when gardener-resource-manager
// already reports the uninstall done. The first is the race the check exists for: the install DaemonSet, fully
// rolled out, which a resource manager's stale cache reports as healthy and not progressing.
func TestDaemonSetUninstalled(t *testing.T) {
	rolledOut := appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, UpdatedNumberScheduled: 3, NumberReady: 3, NumberAvailable: 3}
	ds := func(uninstall bool, status appsv1.DaemonSetStatus) *appsv1.DaemonSet {
		d := &appsv1.DaemonSet{Status: status}
		d.Generation = 2
		if uninstall {
			d.Spec.Template.Labels = map[string]string{render.ModeLabel: string(render.ModeUninstall)}
		}
		return d
	}
	with := func(f func(*appsv1.DaemonSetStatus)) appsv1.DaemonSetStatus {
		s := rolledOut
		f(&s)
		return s
	}
	for _, c := range []struct {
		name string
		ds   *appsv1.DaemonSet
		want string // "" for done, else a part of the error
	}{
		{"install DaemonSet, rolled out", ds(false, rolledOut), "do not run the uninstall yet"},
		{"uninstall, not observed yet", ds(true, with(func(s *appsv1.DaemonSetStatus) { s.ObservedGeneration = 1 })), "observed generation outdated (1/2)"},
		{"uninstall, one node left", ds(true, with(func(s *appsv1.DaemonSetStatus) { s.UpdatedNumberScheduled = 2 })), "2 of 3"},
		{"uninstall, one pod not ready", ds(true, with(func(s *appsv1.DaemonSetStatus) { s.NumberReady, s.NumberAvailable, s.NumberUnavailable = 2, 2, 1 })), "unavailable"},
		{"uninstall, done on every node", ds(true, rolledOut), ""},
		{"uninstall, pool without nodes", ds(true, appsv1.DaemonSetStatus{ObservedGeneration: 2}), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := daemonSetUninstalled(c.ds)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("not done: %v", err)
			case c.want != "" && err == nil:
				t.Errorf("done, want %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Errorf("error %q, want it to say %q", err, c.want)
			}
		})
	}
}
