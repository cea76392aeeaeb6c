// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/nodeinstall"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// runscRoot is the containerd shim's runsc root for the CRI namespace: where the sandboxes' state files and
// control sockets are, and what the metric server lists (node path).
const runscRoot = "/run/containerd/runsc/k8s.io"

// suite is what the nodes of a test share: the Debian tools, the images, the real gVisor release and the metric
// server binary.
type suite struct {
	tools        nodetest.Tools
	images       *nodetest.Images
	release      string
	metricServer string
}

func newSuite(t testing.TB, containerds ...string) *suite {
	t.Helper()
	for _, v := range containerds {
		installertest.Release(t, v)
	}
	tools := nodetest.NodeTools(t)
	s := &suite{tools: tools, release: filepath.Join(t.TempDir(), "gvisor")}
	installertest.RealRelease(t, s.release)
	s.images = nodetest.BuildImages(t, tools)
	s.metricServer = installertest.MetricServer(t)
	return s
}

func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// node is a real node with gVisor installed by the installer's real code path (package nodeinstall), its
// runsc.toml carrying runscConfig.
type node struct {
	*nodetest.Node
}

func (s *suite) installedNode(t testing.TB, version, runscConfig string) *node {
	t.Helper()
	c := installertest.Release(t, version)
	n := &node{Node: nodetest.New(t, nodetest.Config{Containerd: c, Tools: s.tools, Images: s.images})}
	f := nodeinstall.New(t, n.Node, nodeinstall.Setup{Release: s.release, RunscConfig: runscConfig})
	// On a failure the fixture's cleanup logs the installer's log.
	if _, err := installer.Install(context.Background(), f.Options); err != nil {
		t.Fatalf("install on %s: %v", c, err)
	}
	return n
}

// metricServer is a running gvisor-metric-server, as the DaemonSet mode runs it: the collector (cmd, root, reading
// the sandboxes) and its front (the endpoint at addr, as the front's user).
type metricServer struct {
	cmd, front *exec.Cmd
	addr       string
	log        *testutil.SyncBuffer
}

// startMetricServer runs the metric server for the node's sandboxes that carry flag (runsc's metric-server value),
// its front listening on a free loopback port. It runs outside the node, on the host paths of the node's
// bind-mounted /run/containerd: state files and control sockets are files, so it reaches the sandboxes as on a node.
// The collector's socket is in a directory of its own, as in the pod's emptyDir.
func (s *suite) startMetricServer(t testing.TB, n *node, flag string) *metricServer {
	t.Helper()
	addr := freePort(t)
	ms := &metricServer{addr: addr}
	dir, err := os.MkdirTemp("", "gvisor-metrics-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	// The front's user enters the directory and runs its own copy of the binary (the test's temporary
	// directories are root's alone).
	bin := filepath.Join(dir, "gvisor-metric-server")
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := copyExecutable(s.metricServer, bin); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "collector.sock")
	// A short sandbox timeout: the tests make a sandbox hang and want the next scrape to say so quickly. Per pod, as
	// the DaemonSet mode runs it (the series the per-pod rules and panels read).
	ms.cmd = exec.Command(bin, "--root", n.HostPath(runscRoot), "--metric-server", flag, "--listen", socket, "--socket-mode", "0666",
		"--sandbox-timeout", "1s", "--per-pod")
	ms.front = exec.Command(bin, "--collector-socket", socket, "--listen", addr)
	ms.front.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: render.MetricFrontUser, Gid: render.MetricFrontUser}}
	log := &testutil.SyncBuffer{}
	for _, c := range []*exec.Cmd{ms.cmd, ms.front} {
		c.Stdout, c.Stderr = log, log
		if err := c.Start(); err != nil {
			t.Fatalf("starting %s: %v", c.Args, err)
		}
		t.Cleanup(func() {
			_ = c.Process.Signal(os.Interrupt)
			_ = c.Wait()
			if t.Failed() {
				t.Logf("metric server %s log:\n%s", c.Args[1], log)
			}
		})
	}
	ms.log = log
	ms.waitListening(t)
	return ms
}

// copyExecutable copies the program at from to a new file to, executable by everyone.
func copyExecutable(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

// waitListening waits (bounded, 10 s) until the server accepts connections.
func (ms *metricServer) waitListening(t testing.TB) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		c, err := net.Dial("tcp", ms.addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the metric server does not listen on %s within 10 s: %v\n%s", ms.addr, err, ms.log)
		}
	}
}

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// url is the server's metrics endpoint.
func (ms *metricServer) url() string { return fmt.Sprintf("http://%s/metrics", ms.addr) }
