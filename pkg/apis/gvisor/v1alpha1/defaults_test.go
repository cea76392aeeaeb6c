// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

func TestWithDefaults(t *testing.T) {
	const fieldLog = "/var/log/runsc/%ID%/gvisor-%COMMAND%.log" // what the field's extension writes
	tests := []struct {
		name  string
		flags map[string]string
		want  map[string]string
	}{
		{name: "nil stays nil", flags: nil, want: nil},
		{name: "empty becomes nil", flags: map[string]string{}, want: nil},
		{name: "no debug, nothing added", flags: map[string]string{"net-raw": "true"}, want: map[string]string{"net-raw": "true"}},
		{name: "debug false, nothing added", flags: map[string]string{"debug": "false"}, want: map[string]string{"debug": "false"}},
		{name: "debug alone gets the field's path", flags: map[string]string{"debug": "true"},
			want: map[string]string{"debug": "true", "debug-log": fieldLog}},
		{name: "strace alone gets the field's path", flags: map[string]string{"strace": "true"},
			want: map[string]string{"strace": "true", "debug-log": fieldLog}},
		{name: "debug and strace", flags: map[string]string{"debug": "true", "strace": "true", "net-raw": "true"},
			want: map[string]string{"debug": "true", "strace": "true", "net-raw": "true", "debug-log": fieldLog}},
		{name: "explicit debug-log wins", flags: map[string]string{"debug": "true", "debug-log": "/var/log/runsc/"},
			want: map[string]string{"debug": "true", "debug-log": "/var/log/runsc/"}},
		{name: "explicit empty debug-log is kept (Validate refuses it)", flags: map[string]string{"debug": "true", "debug-log": ""},
			want: map[string]string{"debug": "true", "debug-log": ""}},
		{name: "debug-log without debug is kept", flags: map[string]string{"debug-log": "/var/log/x/"},
			want: map[string]string{"debug-log": "/var/log/x/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before map[string]string
			if tt.flags != nil {
				before = make(map[string]string, len(tt.flags))
				for k, v := range tt.flags {
					before[k] = v
				}
			}
			got := v1alpha1.WithDefaults(tt.flags)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("WithDefaults (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.flags); diff != "" {
				t.Errorf("WithDefaults changed its argument (-before +after):\n%s", diff)
			}
			// Idempotent, so applying it again (a renderer fed values it rendered before) changes nothing.
			if diff := cmp.Diff(got, v1alpha1.WithDefaults(got)); diff != "" {
				t.Errorf("WithDefaults is not idempotent:\n%s", diff)
			}
		})
	}
	if v1alpha1.DefaultDebugLog != fieldLog {
		t.Errorf("DefaultDebugLog = %q, want the field's extension's %q", v1alpha1.DefaultDebugLog, fieldLog)
	}
}

// TestDefaultsAreValid: whatever WithDefaults adds passes Validate, for every flag that triggers a default.
func TestDefaultsAreValid(t *testing.T) {
	for _, name := range []string{"debug", "strace"} {
		cfg := &v1alpha1.GVisorConfiguration{ConfigFlags: v1alpha1.WithDefaults(map[string]string{name: "true"})}
		if errs := v1alpha1.Validate(cfg, field.NewPath("providerConfig")); len(errs) > 0 {
			t.Errorf("%s: defaulted flags %v are invalid: %v", name, cfg.ConfigFlags, errs)
		}
	}
}
