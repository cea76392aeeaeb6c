// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package delivery

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Mode{"": DaemonSet, "daemonset": DaemonSet, "operatingsystemconfig": OperatingSystemConfig} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := Parse("DaemonSet")
	if err == nil || !strings.Contains(err.Error(), "use one of daemonset, operatingsystemconfig") {
		t.Errorf("Parse of a wrong spelling: got %v, want an error naming the valid modes", err)
	}
}
