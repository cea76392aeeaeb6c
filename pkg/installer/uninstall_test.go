// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestUninstallRefusals: uninstall refuses, with the node untouched and the file and fix named, what it must not
// guess about: a config containerd cannot read either, and runsc registered by a file that is not ours (it would
// restart containerd and still leave runsc).
func TestUninstallRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		config  []byte
		prepare func(t *testing.T, h *host)
		want    []string
	}{
		{name: "malformed config", config: readTestdata(t, "refused/malformed.toml"), want: []string{nodecontract.ContainerdConfigPath, "not valid TOML"}},
		{name: "runsc in the operator's own drop-in", config: readTestdata(t, "configs/gardener-v3.toml"), prepare: func(t *testing.T, h *host) {
			h.write(t, "/etc/containerd/conf.d/10-runtimes.toml", []byte("version = 3\n[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runsc]\n  runtime_type = 'io.containerd.runsc.v1'\n"))
		}, want: []string{"/etc/containerd/conf.d/10-runtimes.toml", "registers the runsc runtime too"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, tc.config)
			if _, err := installer.Install(context.Background(), h.options()); err != nil && !refusal.Is(err) {
				t.Fatal(err)
			}
			if tc.prepare != nil {
				tc.prepare(t, h)
			}
			before := installertest.HashTree(t, h.root)
			_, err := installer.Uninstall(context.Background(), h.options())
			if !refusal.Is(err) {
				t.Fatalf("want a refusal, got %v", err)
			}
			for _, w := range append(tc.want, "fix:") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q does not say %q", err, w)
				}
			}
			if after := installertest.HashTree(t, h.root); !reflect.DeepEqual(before, after) {
				t.Errorf("a refused uninstall changed the node")
			}
		})
	}
}
