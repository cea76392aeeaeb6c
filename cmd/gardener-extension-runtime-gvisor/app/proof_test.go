// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import "testing"

// TestProveSandboxDefaultsOn: the installer's sandbox proof is on unless the operator passes --prove-sandbox=false,
// and the controller then renders the installation with it off.
func TestProveSandboxDefaultsOn(t *testing.T) {
	for args, want := range map[string]bool{"": true, "--prove-sandbox=false": false, "--prove-sandbox": true} {
		o, fs := NewFlagSet()
		var argv []string
		if args != "" {
			argv = []string{args}
		}
		if err := fs.Parse(argv); err != nil {
			t.Fatal(err)
		}
		if o.ProveSandbox != want {
			t.Errorf("%q: ProveSandbox %v, want %v", args, o.ProveSandbox, want)
		}
	}
}
