// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package cgroups_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/cgroups"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// TestCheck: only cgroup v1 with the systemd driver is refused, with a refusal that names the node's cgroups, the
// reason and the fix.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		h       cgroups.Hierarchy
		systemd bool
		refused bool
	}{
		{cgroups.V1, false, false},
		{cgroups.V1, true, true},
		{cgroups.V2, false, false},
		{cgroups.V2, true, false},
	} {
		err := cgroups.Check(tc.h, tc.systemd)
		if (err != nil) != tc.refused {
			t.Errorf("%s, systemd driver %v: got %v, refused %v", tc.h, tc.systemd, err, tc.refused)
			continue
		}
		if err == nil {
			continue
		}
		var r *refusal.Error
		if !errors.As(err, &r) {
			t.Errorf("%s, systemd driver %v: %T is not a refusal", tc.h, tc.systemd, err)
		}
		for _, want := range []string{"cgroup v1 with the systemd cgroup driver", "outside its pod's cgroup", "fix: a machine image with cgroup v2"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the refusal %q does not say %q", err, want)
			}
		}
	}
}

// TestDetectThisMachine: the machine's own /sys/fs/cgroup is read as one of the two hierarchies, and a path that is
// not a cgroup file system (procfs) or is missing is an error naming it.
func TestDetectThisMachine(t *testing.T) {
	h, err := cgroups.Detect(cgroups.Root)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("this machine: %s", h)
	if _, err := cgroups.Detect("/proc"); err == nil || !strings.Contains(err.Error(), "neither cgroup2 nor a tmpfs") {
		t.Errorf("procfs was taken for a cgroup hierarchy: %v", err)
	}
	if _, err := cgroups.Detect("/nonexistent"); err == nil || !strings.Contains(err.Error(), "/nonexistent") {
		t.Errorf("a missing path: %v", err)
	}
}
