// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode

import (
	"context"
	"os"
	"testing"
	"time"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// Releases are the containerd releases a real-kubelet node runs on: 2.2 and 2.4 (GVISOR_TEST_CONTAINERD). Older
// ones are covered by test/sandbox and test/nodeagent through the CRI; the node harness needs each release's own
// runc shim beside it, which the tool cache has for every release.
func Releases(t testing.TB) []installertest.Containerd {
	t.Helper()
	var out []installertest.Containerd
	for _, c := range installertest.Containerds(t) {
		if c.Major == 2 && c.Minor >= 2 {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		t.Fatal("GVISOR_TEST_CONTAINERD lists no containerd 2.2 or later: run hack/tools/containerd.sh")
	}
	return out
}

// EnvConfig is a Config with the real components of the environment (KUBEBUILDER_ASSETS, GVISOR_TEST_NODE,
// GVISOR_TEST_DBUS_DAEMON) on containerd c; the test skips without them (fails under REQUIRE_REAL_COMPONENTS=1).
func EnvConfig(t testing.TB, c installertest.Containerd) Config {
	t.Helper()
	if os.Geteuid() != 0 {
		const msg = "a real-kubelet node needs root (namespaces, mounts, cgroups)"
		if os.Getenv("REQUIRE_REAL_COMPONENTS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return Config{
		Assets:     realcomponents.KubebuilderAssets(t),
		Containerd: c,
		Tools:      nodetest.NodeTools(t),
		DBusDaemon: realcomponents.Env(t, "GVISOR_TEST_DBUS_DAEMON", "tool-dbus"),
		Log:        testLog{t},
	}
}

// New starts a node for t and stops it in t's cleanup, failing t for anything the stop leaves behind; on a
// failed test it logs the tails of the components' logs first.
func New(t testing.TB, cfg Config) *Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	n, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, c := range []string{"kubelet", "containerd", "kube-controller-manager", "kube-scheduler"} {
				t.Logf("--- %s log (tail) ---\n%s", c, n.LogTail(c, 40))
			}
		}
		if err := n.Stop(); err != nil {
			t.Errorf("stopping the node: %v", err)
		}
	})
	return n
}

// testLog writes the node's progress lines to the test log.
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Helper()
	l.t.Log(string(p[:len(p)-1]))
	return len(p), nil
}
