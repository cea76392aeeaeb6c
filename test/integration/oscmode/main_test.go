// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package oscmode runs the ContainerRuntime controller in the OperatingSystemConfig delivery mode, and switches a
// landscape between the two modes, on a real control plane (test/envtest: kube-apiserver, etcd,
// kube-controller-manager, gardener-resource-manager). The controller runs as its binary in a child process, so a
// test can stop it and start it again with the other --delivery-mode, as an operator's chart change rolls it.
//
// The tests play gardenlet and gardener-node-agent: they write the pool's OperatingSystemConfig in the seed as the
// extension's webhook mutates it (the webhook's own code, oscwebhook.Ensurer.MutateOSC; the webhook server itself
// is tested in its package), the pool's OSC secret in the shoot's kube-system as gardenlet syncs it, and the Node
// annotations and conditions node-agent sets. "Seed" and "shoot" are one API server.
package oscmode

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// env is this test binary's control plane and the controller binary, started once.
var env struct {
	once sync.Once
	cp   *envtest.ControlPlane
	rm   *envtest.ResourceManager
	bin  string
	dir  string
	err  error
}

func setup(t *testing.T) {
	t.Helper()
	assets := realcomponents.KubebuilderAssets(t)
	env.once.Do(func() {
		ctx := context.Background()
		if env.dir, env.err = os.MkdirTemp("", "gvisor-oscmode-"); env.err != nil {
			return
		}
		env.bin = filepath.Join(env.dir, "gardener-extension-runtime-gvisor")
		build := exec.Command("go", "build", "-o", env.bin, "./cmd/gardener-extension-runtime-gvisor")
		build.Dir = repoRoot()
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			env.err = fmt.Errorf("building the controller: %w\n%s", err, out)
			return
		}
		if env.cp, env.err = envtest.Start(ctx, envtest.Options{AssetsDir: assets}); env.err != nil {
			return
		}
		env.rm, env.err = envtest.StartResourceManager(ctx, env.cp.Config, logr.Discard())
	})
	if env.err != nil {
		t.Fatalf("starting the control plane: %v", env.err)
	}
}

func repoRoot() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..", "..")
}

func TestMain(m *testing.M) {
	logf.SetLogger(logr.Discard())
	code := m.Run()
	if env.rm != nil {
		_ = env.rm.Stop()
	}
	if env.cp != nil {
		if err := env.cp.Stop(); err != nil && code == 0 {
			fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
			code = 1
		}
	}
	if env.dir != "" {
		_ = os.RemoveAll(env.dir)
	}
	os.Exit(code)
}

// controller is one run of the controller binary in a delivery mode.
type controller struct {
	cmd  *exec.Cmd
	log  string
	done chan error
}

// startController runs the controller in mode until the test ends (or stop). The webhook server runs too (both
// modes serve it, as the chart configures); its registration selects shoot namespaces (gardener.cloud/role=shoot),
// which these tests' namespaces are not, so the API server never calls it and the tests write what it would.
func startController(t *testing.T, mode delivery.Mode) *controller {
	t.Helper()
	kubeconfig, err := env.cp.AddUser("gardener-extension-runtime-gvisor")
	if err != nil {
		t.Fatal(err)
	}
	ports := testutil.FreePorts(t, 3)
	certDir := t.TempDir()
	c := &controller{log: filepath.Join(t.TempDir(), "controller.log"), done: make(chan error, 1)}
	logFile, err := os.Create(c.log)
	if err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command(env.bin,
		"--kubeconfig="+kubeconfig,
		"--leader-election=false",
		"--ignore-operation-annotation=false",
		"--disable-controllers=heartbeat",
		"--health-bind-address=127.0.0.1:"+strconv.Itoa(ports[0]),
		"--metrics-bind-address=127.0.0.1:"+strconv.Itoa(ports[1]),
		"--log-format=text",
		"--delete-wait-timeout=20s",
		"--uninstall-timeout=30s",
		"--healthcheck-sync-period=2s",
		"--delivery-mode="+string(mode),
		"--webhook-config-server-host=127.0.0.1",
		"--webhook-config-server-port="+strconv.Itoa(ports[2]),
		"--webhook-config-cert-dir="+certDir,
		"--webhook-config-mode=url",
		"--webhook-config-url=127.0.0.1:"+strconv.Itoa(ports[2]),
	)
	c.cmd.Stdout, c.cmd.Stderr = logFile, logFile
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.done <- c.cmd.Wait(); logFile.Close() }()
	t.Cleanup(func() {
		c.stop(t)
		if t.Failed() {
			tail, _ := os.ReadFile(c.log)
			if len(tail) > 6000 {
				tail = tail[len(tail)-6000:]
			}
			t.Logf("controller (%s) log tail:\n%s", mode, tail)
		}
	})
	health := "http://127.0.0.1:" + strconv.Itoa(ports[0]) + "/readyz"
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case err := <-c.done:
			c.done <- err
			tail, _ := os.ReadFile(c.log)
			t.Fatalf("controller exited before ready: %v\n%s", err, tail)
		default:
		}
		if code, _, err := envtest.HTTPGet(context.Background(), health); err == nil && code == 200 {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("controller not ready at %s within 1m", health)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stop ends the controller (SIGTERM, as a rolling update does) and waits for it; safe to call twice.
func (c *controller) stop(t *testing.T) {
	t.Helper()
	if c.cmd.ProcessState != nil {
		return
	}
	_ = c.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-c.done:
		t.Logf("controller stopped: %v", err)
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		t.Logf("controller killed after 30 s: %v", <-c.done)
	}
}
