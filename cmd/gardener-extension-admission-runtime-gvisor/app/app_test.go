// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-admission-runtime-gvisor/app"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

func TestVersionAndHelp(t *testing.T) {
	var out bytes.Buffer
	if err := app.Run(context.Background(), []string{"--version"}, &out); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != version.Version {
		t.Errorf("--version printed %q, want %q", got, version.Version)
	}
	out.Reset()
	if err := app.Run(context.Background(), []string{"--help"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--tls-cert-dir", "--webhook-port", "--metrics-bind-address", "--health-bind-address", "--log-level"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("--help does not document %s:\n%s", flag, out.String())
		}
	}
}

// TestValidateNamesFlagAndFix: each bad invocation fails before serving, with every problem named.
func TestValidateNamesFlagAndFix(t *testing.T) {
	certDir := t.TempDir()
	for _, f := range []string{"tls.crt", "tls.key"} {
		if err := os.WriteFile(filepath.Join(certDir, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no cert dir", nil, []string{"--tls-cert-dir is required"}},
		{"cert dir without files", []string{"--tls-cert-dir=" + t.TempDir()},
			[]string{"has no tls.crt (--tls-cert-name): mount the serving certificate Secret there", "has no tls.key (--tls-key-name)"}},
		{"everything wrong at once", []string{"--tls-cert-dir=" + certDir, "--webhook-port=0", "--metrics-bind-address=8080",
			"--health-bind-address=x", "--log-level=verbose", "--log-format=xml"},
			[]string{"--webhook-port must be between 1 and 65535, got 0", `--metrics-bind-address "8080" must be host:port`,
				`--health-bind-address "x" must be host:port`, `--log-level "verbose" is not one of debug, info, error`, `--log-format "xml" is not one of json, text`}},
		{"positional argument", []string{"serve"}, []string{`unexpected arguments ["serve"]`}},
		{"unknown flag", []string{"--leader-election=true"}, []string{"unknown flag: --leader-election"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := app.Run(context.Background(), tc.args, &bytes.Buffer{})
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}
