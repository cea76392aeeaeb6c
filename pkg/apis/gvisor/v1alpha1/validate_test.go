// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1_test

import (
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/apis/gvisor/v1alpha1"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		flags   map[string]string
		tag     *string
		wantErr []string // one entry per expected error, each a set of substrings joined by |
	}{
		{name: "no flags", flags: nil},
		{name: "Istio", flags: map[string]string{"net-raw": "true"}},
		{name: "every allowed flag", flags: map[string]string{
			"net-raw": "true", "debug": "true", "debug-log": "/var/log/runsc/%ID%/", "strace": "false", "nvproxy": "true",
			"platform": "kvm", "panic-signal": "12", "directfs": "false", "overlay2": "all:memory,size=2g",
			"file-access": "exclusive", "watchdog-action": "panic", "cpu-num-from-quota": "false",
		}},
		{name: "shared file access without an overlay", flags: map[string]string{"file-access": "shared", "overlay2": "none"}},
		{
			// runsc refuses it at every sandbox: its default overlay2 is root:self.
			name:    "shared file access with the default overlay",
			flags:   map[string]string{"file-access": "shared"},
			wantErr: []string{`providerConfig.configFlags[file-access]|runsc refuses shared file access|overlay2: "none"`},
		},
		{
			name:    "shared file access with an overlay",
			flags:   map[string]string{"file-access": "shared", "overlay2": "root:memory"},
			wantErr: []string{`providerConfig.configFlags[file-access]|overlay2: "none"`},
		},
		{name: "debug-log directory", flags: map[string]string{"debug-log": "/var/log/runsc/"}},
		{name: "debug-log with every variable", flags: map[string]string{"debug-log": "/var/log/runsc/%ID%/%CID%-%TIMESTAMP%-%COMMAND%.log"}},
		{name: "debug-log element of 255 bytes", flags: map[string]string{"debug-log": "/var/log/runsc/" + strings.Repeat("a", 255)}},
		{
			name:    "debug-log element of 256 bytes",
			flags:   map[string]string{"debug-log": "/var/log/runsc/" + strings.Repeat("a", 256)},
			wantErr: []string{`providerConfig.configFlags[debug-log]|element of 256 bytes|at most 255`},
		},
		{
			// 191 + a 64-character sandbox ID is 255; one more is too long on a node, though `runsc list` (ID <unknown>) opens it.
			name:  "debug-log element at 255 bytes with %ID% counted as 64",
			flags: map[string]string{"debug-log": "/var/log/runsc/" + strings.Repeat("a", 191) + "%ID%"},
		},
		{
			name:    "debug-log element over 255 bytes with %ID% counted as 64",
			flags:   map[string]string{"debug-log": "/var/log/runsc/" + strings.Repeat("a", 192) + "%ID%"},
			wantErr: []string{`providerConfig.configFlags[debug-log]|element of 256 bytes with each variable counted as 64`},
		},
		{
			name:    "debug-log directory whose default file name is too long",
			flags:   map[string]string{"debug-log": "/var/log/runsc/" + strings.Repeat("d/", 450)},
			wantErr: []string{`providerConfig.configFlags[debug-log]|bytes long|at most 1024`},
		},
		{
			name:    "debug-log outside /var/log/runsc",
			flags:   map[string]string{"debug-log": "/etc/cron.d/runsc"},
			wantErr: []string{`providerConfig.configFlags[debug-log]|must be under /var/log/runsc/`},
		},
		{
			name:    "debug-log /var/log/runsc without the slash",
			flags:   map[string]string{"debug-log": "/var/log/runsc"},
			wantErr: []string{`providerConfig.configFlags[debug-log]|must be under /var/log/runsc/`},
		},
		{
			name:    "debug-log escaping /var/log/runsc",
			flags:   map[string]string{"debug-log": "/var/log/runsc/../../../etc/x"},
			wantErr: []string{`providerConfig.configFlags[debug-log]|clean`},
		},
		{
			name:    "debug-log with an unknown variable",
			flags:   map[string]string{"debug-log": "/var/log/runsc/%TEST%.log"},
			wantErr: []string{`providerConfig.configFlags[debug-log]|uses % outside the variables`},
		},
		{name: "overlay2 none", flags: map[string]string{"overlay2": "none"}},
		{name: "overlay2 all:memory", flags: map[string]string{"overlay2": "all:memory"}},
		{name: "overlay2 root:self", flags: map[string]string{"overlay2": "root:self"}},
		{name: "panic-signal -1", flags: map[string]string{"panic-signal": "-1"}},
		{name: "testImageTag", tag: ptr("v0.5.1")},
		{
			name:    "unknown flag lists allowed flags",
			flags:   map[string]string{"network": "host"},
			wantErr: []string{`providerConfig.configFlags[network]|unknown or not allowed runsc flag "network"|allowed flags: cpu-num-from-quota, debug, debug-log, directfs, file-access, net-raw, nvproxy, nvproxy-allowed-driver-capabilities, overlay2, panic-signal, platform, strace, watchdog-action`},
		},
		{
			name:    "flag with leading dashes",
			flags:   map[string]string{"--net-raw": "true"},
			wantErr: []string{`providerConfig.configFlags[--net-raw]|not allowed`},
		},
		{
			name:    "bool spelled 1",
			flags:   map[string]string{"net-raw": "1"},
			wantErr: []string{`providerConfig.configFlags[net-raw]|Unsupported value: "1"|"false", "true"`},
		},
		{
			name:    "platform typo",
			flags:   map[string]string{"platform": "systrapp"},
			wantErr: []string{`providerConfig.configFlags[platform]|"kvm", "ptrace", "systrap"`},
		},
		{
			name:    "panic-signal out of range",
			flags:   map[string]string{"panic-signal": "64"},
			wantErr: []string{`providerConfig.configFlags[panic-signal]|between -1 and 31|allowed: an integer from -1 to 31`},
		},
		{
			name:    "panic-signal not plain",
			flags:   map[string]string{"panic-signal": "012"},
			wantErr: []string{`providerConfig.configFlags[panic-signal]|written plainly`},
		},
		{
			name:    "relative debug-log",
			flags:   map[string]string{"debug": "true", "debug-log": "runsc.log"},
			wantErr: []string{`providerConfig.configFlags[debug-log]|absolute path`},
		},
		{
			name:    "debug-log with ..",
			flags:   map[string]string{"debug-log": "/var/log/runsc/../etc/"},
			wantErr: []string{`providerConfig.configFlags[debug-log]|clean`},
		},
		{
			name:    "debug-log with a quote cannot break runsc.toml",
			flags:   map[string]string{"debug-log": `/var/log/x"y`},
			wantErr: []string{`providerConfig.configFlags[debug-log]|letters, digits`},
		},
		// The field's extension documents debug: "true" on its own; WithDefaults gives it DefaultDebugLog.
		{name: "debug without a log path (field-compatible)", flags: map[string]string{"debug": "true"}},
		{name: "strace without a log path", flags: map[string]string{"strace": "true"}},
		{
			name:    "explicit empty debug-log is not defaulted but refused",
			flags:   map[string]string{"debug": "true", "debug-log": ""},
			wantErr: []string{`providerConfig.configFlags[debug-log]|absolute path`},
		},
		{
			name:    "overlay2 bad medium",
			flags:   map[string]string{"overlay2": "root:disk"},
			wantErr: []string{`providerConfig.configFlags[overlay2]|medium "disk"|allowed: none, or {root|all}`},
		},
		{
			name:    "overlay2 dir= is not offered",
			flags:   map[string]string{"overlay2": "root:dir=/var/lib/runsc-overlay"},
			wantErr: []string{`providerConfig.configFlags[overlay2]|medium dir= is not offered|use self`},
		},
		{name: "overlay2 largest size", flags: map[string]string{"overlay2": "root:self,size=8388608t"}},
		{
			name:    "overlay2 size past 2^63 bytes",
			flags:   map[string]string{"overlay2": "root:self,size=8388609t"},
			wantErr: []string{`providerConfig.configFlags[overlay2]|larger than 2^63 bytes`},
		},
		{
			name:    "overlay2 size with leading zero",
			flags:   map[string]string{"overlay2": "root:self,size=01g"},
			wantErr: []string{`providerConfig.configFlags[overlay2]|size=<number>`},
		},
		{
			name:    "overlay2 bad size",
			flags:   map[string]string{"overlay2": "root:memory,size=lots"},
			wantErr: []string{`providerConfig.configFlags[overlay2]|size=<number>`},
		},
		{
			name:    "overlay2 bad mount",
			flags:   map[string]string{"overlay2": "submounts:memory"},
			wantErr: []string{`providerConfig.configFlags[overlay2]|must start with "root:" or "all:"`},
		},
		{
			name:    "several errors are all reported, sorted by flag",
			flags:   map[string]string{"platform": "gvisor", "directfs": "yes"},
			wantErr: []string{`configFlags[directfs]`, `configFlags[platform]`},
		},
		{
			name:    "bad testImageTag",
			tag:     ptr("v1:latest"),
			wantErr: []string{`providerConfig.testImageTag|must be an image tag`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &v1alpha1.GVisorConfiguration{TypeMeta: typeMeta, ConfigFlags: tt.flags, TestImageTag: tt.tag}
			errs := v1alpha1.Validate(cfg, v1alpha1.ProviderConfigPath)
			if len(errs) != len(tt.wantErr) {
				t.Fatalf("Validate() = %v, want %d errors %q", errs, len(tt.wantErr), tt.wantErr)
			}
			for i, want := range tt.wantErr {
				for _, s := range strings.Split(want, "|") {
					if !strings.Contains(errs[i].Error(), s) {
						t.Errorf("error %d = %q, want it to contain %q", i, errs[i].Error(), s)
					}
				}
			}
		})
	}
}

func TestAllowedFlagsDescribed(t *testing.T) {
	for _, f := range v1alpha1.AllowedFlags() {
		if v1alpha1.AllowedValues(f) == "" {
			t.Errorf("flag %q has no description of its allowed values", f)
		}
	}
	if v1alpha1.AllowedValues("network") != "" {
		t.Error("AllowedValues of a flag outside the allowlist must be empty")
	}
}
