// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/nodeinstall"
)

// supported are the containerd minor releases gVisor pods run on (the installer refuses older ones).
var supported = []string{"1.7", "2.0", "2.2", "2.4"}

// suite is what every node of a test shares: the Debian tools, the images, the real gVisor release.
type suite struct {
	tools   nodetest.Tools
	images  *nodetest.Images
	release string
}

// newSuite finds the real components (skipping, or failing under REQUIRE_REAL_COMPONENTS=1, without them) and
// builds the images once for the test.
func newSuite(t testing.TB) *suite {
	t.Helper()
	for _, v := range supported {
		installertest.Release(t, v)
	}
	tools := nodetest.NodeTools(t)
	s := &suite{tools: tools, release: filepath.Join(t.TempDir(), "gvisor")}
	installertest.RealRelease(t, s.release)
	s.images = nodetest.BuildImages(t, tools)
	return s
}

// releases runs f once per supported containerd release for which filter (nil: all) is true, as a subtest named
// after the release.
func (s *suite) releases(t *testing.T, filter func(installertest.Containerd) bool, f func(t *testing.T, c installertest.Containerd)) {
	for _, v := range supported {
		if c := installertest.Release(t, v); filter == nil || filter(c) {
			t.Run(c.String(), func(t *testing.T) { f(t, c) })
		}
	}
}

// node is a real node plus the installer's options for it (package nodeinstall): the real release, the node's
// restarter, the installer's own CRI verifier on the node's socket and its proof on every Install.
type node struct {
	*nodetest.Node

	r    *nodetest.Restarter
	o    installer.Options
	logs *bytes.Buffer
}

// newNode starts a node of release c (cfg may carry a config.toml and ExpectDown) with installer options whose
// runsc.toml is runscConfig.
func (s *suite) newNode(t testing.TB, c installertest.Containerd, cfg nodetest.Config, runscConfig string) *node {
	t.Helper()
	cfg.Containerd, cfg.Tools, cfg.Images = c, s.tools, s.images
	n := nodetest.New(t, cfg)
	f := nodeinstall.New(t, n, nodeinstall.Setup{Release: s.release, RunscConfig: runscConfig})
	return &node{Node: n, r: f.Restarter, o: f.Options, logs: f.Logs}
}

// install runs installer.Install and checks the number of containerd restarts it caused.
func (n *node) install(t *testing.T, wantRestarts int) installer.Result {
	t.Helper()
	before := n.r.Restarts
	res, err := installer.Install(context.Background(), n.o)
	if err != nil {
		t.Fatalf("install on %s: %v", n.C, err)
	}
	if got := n.r.Restarts - before; got != wantRestarts || res.Restarts != wantRestarts {
		t.Errorf("install on %s: %d containerd restarts (result says %d), want %d: %s", n.C, got, res.Restarts, wantRestarts, res.Summary())
	}
	t.Logf("%s", res.Summary())
	return res
}

// runcPod starts a pod with containerd's default handler and proves that its container runs on the host kernel.
func runcPod(t *testing.T, n *node) {
	t.Helper()
	ctx := context.Background()
	pod, err := n.RunPod(ctx, nodetest.PodSpec{})
	if err != nil {
		t.Fatalf("runc pod on %s: %v", n.C, err)
	}
	id, err := n.StartContainer(ctx, pod, nodetest.BusyboxImage, "sleep", "3600")
	if err != nil {
		t.Fatalf("container in the runc pod on %s: %v", n.C, err)
	}
	version, err := n.ExecSync(ctx, id, "cat", "/proc/version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "Linux version") || strings.Contains(version, "gvisor") {
		t.Errorf("the runc pod's container should run on the host kernel: /proc/version = %q", version)
	}
}

func writeTemp(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
