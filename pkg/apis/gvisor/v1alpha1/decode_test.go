// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

var typeMeta = metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.Kind}

func ptr(s string) *string { return &s }

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    *v1alpha1.GVisorConfiguration
		wantErr []string // substrings that must all appear in the error
	}{
		{name: "nil means defaults", raw: "", want: &v1alpha1.GVisorConfiguration{TypeMeta: typeMeta}},
		{name: "null means defaults", raw: "null", want: &v1alpha1.GVisorConfiguration{TypeMeta: typeMeta}},
		{
			name: "old operator manifest (YAML as written in a Shoot)",
			raw: `apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1
kind: GVisorConfiguration
configFlags:
  net-raw: "true"
  debug: "false"
testImageTag: v0.5.1
`,
			want: &v1alpha1.GVisorConfiguration{TypeMeta: typeMeta,
				ConfigFlags: map[string]string{"net-raw": "true", "debug": "false"}, TestImageTag: ptr("v0.5.1")},
		},
		{
			name: "JSON as a ContainerRuntime's providerConfig.Raw carries it",
			raw:  `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{"platform":"ptrace"}}`,
			want: &v1alpha1.GVisorConfiguration{TypeMeta: typeMeta, ConfigFlags: map[string]string{"platform": "ptrace"}},
		},
		{
			name:    "unknown field is named, with the known ones",
			raw:     `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlag":{"net-raw":"true"}}`,
			wantErr: []string{"providerConfig.configFlag: Forbidden", `unknown field "configFlag"`, "configFlags, sandboxMetrics, testImageTag"},
		},
		{
			name:    "duplicate field in JSON",
			raw:     `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{},"configFlags":{}}`,
			wantErr: []string{"providerConfig.configFlags: Forbidden", `duplicate field "configFlags"`},
		},
		{
			name:    "flag given twice in JSON",
			raw:     `{"configFlags":{"net-raw":"true","net-raw":"false"}}`,
			wantErr: []string{"providerConfig.configFlags[net-raw]: Forbidden", `duplicate field "configFlags.net-raw"`},
		},
		{
			name:    "duplicate key in YAML",
			raw:     "apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1\nkind: GVisorConfiguration\nconfigFlags:\n  net-raw: \"true\"\n  net-raw: \"false\"\n",
			wantErr: []string{"providerConfig", "net-raw"},
		},
		{
			name:    "unquoted bool says to quote it",
			raw:     "apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1\nkind: GVisorConfiguration\nconfigFlags:\n  net-raw: true\n",
			wantErr: []string{"providerConfig.configFlags[net-raw]", `quote the value, for example net-raw: "true"`},
		},
		{
			name:    "wrong apiVersion",
			raw:     `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1beta1","kind":"GVisorConfiguration"}`,
			wantErr: []string{"providerConfig.apiVersion", `"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1"`},
		},
		// The field's extension's decoder fills in a missing apiVersion and kind from its target type, so shoots
		// that omit them work there; they must decode here too.
		{
			name: "missing kind and apiVersion (accepted by the field's extension)",
			raw:  `{"configFlags":{"net-raw":"true"}}`,
			want: &v1alpha1.GVisorConfiguration{TypeMeta: typeMeta, ConfigFlags: map[string]string{"net-raw": "true"}},
		},
		{
			name: "missing apiVersion",
			raw:  `{"kind":"GVisorConfiguration","configFlags":{"debug":"true"}}`,
			want: &v1alpha1.GVisorConfiguration{TypeMeta: typeMeta, ConfigFlags: map[string]string{"debug": "true"}},
		},
		{
			name: "missing kind",
			raw:  "apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1\ntestImageTag: v0.5.1\n",
			want: &v1alpha1.GVisorConfiguration{TypeMeta: typeMeta, TestImageTag: ptr("v0.5.1")},
		},
		{
			name:    "wrong kind",
			raw:     `{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"RuncConfiguration"}`,
			wantErr: []string{"providerConfig.kind: Unsupported value", `"GVisorConfiguration"`},
		},
		{
			name:    "another extension's apiVersion",
			raw:     `{"apiVersion":"some.group.com/v1alpha1","kind":"GVisorConfiguration","configFlags":{"any":"flag"}}`,
			wantErr: []string{"providerConfig.apiVersion: Unsupported value", `"some.group.com/v1alpha1"`},
		},
		{
			name:    "not an object",
			raw:     `["net-raw"]`,
			wantErr: []string{"providerConfig", "must be a GVisorConfiguration object"},
		},
		{
			name:    "not YAML",
			raw:     "configFlags: [",
			wantErr: []string{"providerConfig", "not valid YAML or JSON"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v1alpha1.Decode([]byte(tt.raw))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Decode() = %+v, want an error containing %q", got, tt.wantErr)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("Decode() error = %q, want it to contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDeepCopy(t *testing.T) {
	in := &v1alpha1.GVisorConfiguration{TypeMeta: typeMeta, ConfigFlags: map[string]string{"net-raw": "true"}, TestImageTag: ptr("v1")}
	out := in.DeepCopy()
	if diff := cmp.Diff(in, out); diff != "" {
		t.Fatalf("DeepCopy() differs (-in +out):\n%s", diff)
	}
	out.ConfigFlags["net-raw"] = "false"
	*out.TestImageTag = "v2"
	if in.ConfigFlags["net-raw"] != "true" || *in.TestImageTag != "v1" {
		t.Fatalf("DeepCopy() shares memory with its source: %+v", in)
	}
	if (*v1alpha1.GVisorConfiguration)(nil).DeepCopy() != nil {
		t.Fatal("DeepCopy(nil) != nil")
	}
}
