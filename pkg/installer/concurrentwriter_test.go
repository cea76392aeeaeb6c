// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// nodeAgentEdit is what another writer (gardener-node-agent's OSC reconcile) adds to config.toml while a run is
// between its plan and its write.
const nodeAgentEdit = "\n# written by gardener-node-agent while gvisor-installer ran\n"

// TestConcurrentWriterIsNotLost: config.toml changes after the run planned (gardener-node-agent rewrites it at every
// OSC reconcile) and before it writes. The run notices, undoes what it wrote, plans again from the new content and
// applies that: the other writer's change and runsc's registration are both on the node, in both configurations the
// installer edits (config.toml of version 2; the drop-in of version 3 and later, where config.toml stays the other
// writer's). Uninstall writes through the same check (apply).
func TestConcurrentWriterIsNotLost(t *testing.T) {
	for _, config := range []string{"configs/gardener-v2.toml", "configs/default-2.4.toml"} {
		t.Run(config, func(t *testing.T) {
			h := newHost(t, readTestdata(t, config))
			var once sync.Once
			meanwhile := func(string) {
				once.Do(func() {
					h.write(t, nodecontract.ContainerdConfigPath, append(h.read(t, nodecontract.ContainerdConfigPath), nodeAgentEdit...))
				})
			}
			res, err := installer.Install(context.Background(), installer.WithCopyHook(h.options(), meanwhile))
			if err != nil {
				t.Fatalf("install: %v\n%s", err, h.logs)
			}
			got := h.read(t, nodecontract.ContainerdConfigPath)
			if !bytes.Contains(got, []byte(nodeAgentEdit)) {
				t.Errorf("install overwrote the other writer's change of config.toml:\n%s", got)
			}
			registered := bytes.Contains(got, []byte("runtimes.runsc]")) || h.exists(nodecontract.DropInPath)
			if !registered {
				t.Errorf("runsc is not registered after the install: %s\n%s", res.Summary(), got)
			}
			if strings.Contains(config, "v2") && !strings.Contains(h.logs.String(), "planning again") {
				t.Errorf("the run did not notice the change between its plan and its write:\n%s", h.logs)
			}
		})
	}
}

// TestRollbackKeepsANewerWriter: containerd does not run the new configuration (containerd 2.2 ignores the CRI
// settings of a version-1 config, as in TestRollbackWhenRunscNotInEffect), and another writer changed config.toml
// after the run wrote it and before the restart. The rollback leaves that writer's bytes, says so, and containerd
// runs on them.
func TestRollbackKeepsANewerWriter(t *testing.T) {
	c := installertest.Release(t, "2.2")
	h := newHost(t, readTestdata(t, "configs/v1.toml"))
	d := installertest.StartDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	var newer []byte
	r := &installertest.Restarter{D: d, Before: func(n int) {
		if n == 1 {
			newer = append(h.read(t, nodecontract.ContainerdConfigPath), nodeAgentEdit...)
			h.write(t, nodecontract.ContainerdConfigPath, newer)
		}
	}}
	o := h.options()
	o.Restarter, o.Verifier, o.VerifyTimeout = r, verify.CRI{Socket: d.Socket}, 6*time.Second

	res, err := installer.Install(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "another writer changed it meanwhile") {
		t.Fatalf("want a failure that names the other writer, got %v (%s)", err, res.Summary())
	}
	if got := h.read(t, nodecontract.ContainerdConfigPath); !bytes.Equal(got, newer) {
		t.Errorf("the rollback overwrote the newer writer's config.toml:\n%s", got)
	}
	if res.RolledBack {
		t.Errorf("the result claims a full rollback: %s", res.Summary())
	}
	if err := o.Verifier.Verify(context.Background(), verify.Up); err != nil {
		t.Errorf("containerd not up after the rollback: %v", err)
	}
}
