// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package runscconfig

import (
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		flags      string
		wantErr    string
	}{
		{name: "chart output", data: "[runsc_config]\n  debug = \"true\"\n  net-raw = \"true\"\n", flags: "debug,net-raw"},
		{name: "empty", data: string(Empty)},
		{name: "not TOML", data: "[runsc_config\n", wantErr: "not valid TOML"},
		{name: "other table", data: "[runsc]\n", wantErr: `unexpected key "runsc"`},
		{name: "bool value", data: "[runsc_config]\n  debug = true\n", wantErr: `quote the value: debug = "true"`},
		{name: "not a table", data: "runsc_config = 1\n", wantErr: "not a table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flags, err := Validate("runsc.toml", []byte(tc.data))
			if tc.wantErr != "" {
				if !refusal.Is(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want refusal %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil || strings.Join(flags, ",") != tc.flags {
				t.Fatalf("got %v, %v", flags, err)
			}
		})
	}
}
