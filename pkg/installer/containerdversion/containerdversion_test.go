// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package containerdversion

import (
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

func TestParse(t *testing.T) {
	for raw, want := range map[string][3]int{
		"1.6.20~ds1":         {1, 6, 20}, // Debian bookworm's package
		"v2.0.14":            {2, 0, 14},
		"1.7.35":             {1, 7, 35},
		"1.7.35+unknown":     {1, 7, 35}, // built from the module without version stamping
		"2.2.0-rc.1":         {2, 2, 0},
		"v1.7.2 a4e7f8d":     {1, 7, 2},
		"1.7":                {1, 7, 0},
		" 2.4.2\n":           {2, 4, 2},
		"1.6.12-0ubuntu1":    {1, 6, 12},
		"1.7.24-1~bookworm1": {1, 7, 24},
	} {
		v, err := Parse(raw)
		if err != nil || [3]int{v.Major, v.Minor, v.Patch} != want {
			t.Errorf("Parse(%q) = %+v, %v; want %v", raw, v, err, want)
		}
	}
	for _, raw := range []string{"", "unknown", "v", "1", "1.x.2", "1.7.3.4", "devel"} {
		if _, err := Parse(raw); err == nil {
			t.Errorf("Parse(%q) succeeded", raw)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		refused   bool
		want      []string
	}{
		{"containerd", "1.6.20~ds1", true, []string{"containerd 1.6.20~ds1", "needs containerd 1.7 or later", "containerd 1.6 does not understand", "fix: upgrade the node's containerd", "remove gvisor from the worker pool"}},
		{"containerd", "v1.5.9", true, []string{"containerd v1.5.9"}},
		{"containerd", "0.9.0", true, nil},
		{"containerd", "1.7.0", false, nil},
		{"containerd", "v2.0.14", false, nil},
		{"containerd", "2.4.2+unknown", false, nil},
		{"containerd", "devel", false, nil}, // unparseable: not refused, the proof decides
		{"cri-o", "1.30.0", true, []string{"not served by containerd"}},
	} {
		_, _, err := Check(tc.name, tc.raw)
		if tc.refused != (err != nil) || (err != nil && !refusal.Is(err)) {
			t.Errorf("Check(%q, %q) = %v; want refused=%v", tc.name, tc.raw, err, tc.refused)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Check(%q): %q does not say %q", tc.raw, err, w)
			}
		}
	}
}
