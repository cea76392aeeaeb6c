// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestSeedSnapshot: --seed prints, in each delivery mode, the monitoring objects the controller deploys into the
// ContainerRuntimes' namespace (pkg/monitoring's ShootObjects), for that namespace only.
func TestSeedSnapshot(t *testing.T) {
	for _, mode := range delivery.Modes {
		t.Run(string(mode), func(t *testing.T) {
			golden := "example-seed.yaml"
			if mode != delivery.DaemonSet {
				golden = "example-seed-" + string(mode) + ".yaml"
			}
			out := snapshot(t, example, golden, "--seed", "--delivery-mode", string(mode))
			objs, err := monitoring.ShootObjects("shoot--foo--bar", mode)
			testutil.Must(t, err)
			if docs := strings.Count(out, "---\n"); docs != len(objs) {
				t.Errorf("--seed printed %d documents, the controller deploys %d objects", docs, len(objs))
			}
			if n := strings.Count(out, "namespace: "); n != len(objs) || strings.Count(out, "namespace: shoot--foo--bar\n") != n {
				t.Errorf("--seed's objects are not all in the ContainerRuntime's namespace shoot--foo--bar:\n%s", out)
			}
		})
	}
}

// TestSeedNamespaceErrors: --seed needs the shoot's namespace, and one of them: the error names the field and the
// fix. Bad ContainerRuntimes fail as without --seed.
func TestSeedNamespaceErrors(t *testing.T) {
	raw, err := os.ReadFile(example)
	testutil.Must(t, err)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		testutil.Must(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	noNamespace := write("no-namespace.yaml", strings.Replace(string(raw), "  namespace: shoot--foo--bar\n", "", 1))
	other := strings.NewReplacer("  namespace: shoot--foo--bar\n", "  namespace: shoot--foo--baz\n", "name: worker-gvisor", "name: worker-other").Replace(string(raw))
	twoShoots := write("two-shoots.yaml", string(raw)+"\n---\n"+other)
	for name, c := range map[string]struct {
		file string
		want []string
	}{
		"no namespace": {noNamespace, []string{"metadata.namespace is empty", "shoot--<project>--<shoot>"}},
		"two shoots":   {twoShoots, []string{"ContainerRuntime 2", "metadata.namespace shoot--foo--baz differs from shoot--foo--bar", "one shoot"}},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, stderr := runCmd(t, "v0.1.0-dev", "-f", c.file, "--seed")
			if code != 1 || out != "" {
				t.Fatalf("exit %d with output %q, want 1 and nothing printed (stderr %s)", code, out, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q: %s", w, stderr)
				}
			}
		})
	}
}
