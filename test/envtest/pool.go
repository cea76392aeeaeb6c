// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// controllerPackage is the controller's main package, which a pool builds and runs.
const controllerPackage = "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-runtime-gvisor"

// StackPool lends a test binary's parallel tests a Stack each, for the test's whole run: a Stack's seed is also its
// shoot (the RuntimeClass is cluster-scoped), so two tests never share one at a time, but a test that waits on the
// controllers leaves the machine to the others. The pool starts a Stack when a test asks and none is free, up to
// Size; each runs the controller as the binary (built once per pool from this tree: controller-runtime's
// controller names are process-global, so a process holds at most one controller in-process), and the binary's
// TestMain stops them all after the last test (Main).
type StackPool struct {
	// Options configure every stack; ControllerBinary and AssetsDir are the pool's.
	Options StackOptions
	// Size is the most stacks the pool runs at once.
	Size int

	once   sync.Once
	slots  chan struct{}
	mu     sync.Mutex
	free   []*Stack
	all    []*Stack
	binary string
	dir    string
	err    error
}

// Get lends t a Stack until t ends, starting one if none is free and fewer than Size run, else waiting for one. A
// test that cannot get the control plane's binaries skips (fails under REQUIRE_REAL_COMPONENTS=1); one whose stack
// did not start fails.
func (p *StackPool) Get(t testing.TB) *Stack {
	t.Helper()
	assets := p.Options.AssetsDir
	if assets == "" {
		assets = realcomponents.KubebuilderAssets(t)
	}
	p.once.Do(func() {
		p.slots = make(chan struct{}, max(p.Size, 1))
		p.binary, p.dir, p.err = buildController()
	})
	if p.err != nil {
		t.Fatalf("building the controller for the stacks: %v", p.err)
	}
	p.slots <- struct{}{}
	s, err := p.take(assets)
	if err != nil {
		<-p.slots
		t.Fatalf("starting a control plane: %v", err)
	}
	t.Cleanup(func() {
		p.mu.Lock()
		p.free = append(p.free, s)
		p.mu.Unlock()
		<-p.slots
	})
	return s
}

// take returns a free stack, or starts one.
func (p *StackPool) take(assets string) (*Stack, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return s, nil
	}
	p.mu.Unlock()
	opts := p.Options
	opts.AssetsDir, opts.ControllerBinary = assets, p.binary
	s, err := StartStack(context.Background(), opts)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.all = append(p.all, s)
	p.mu.Unlock()
	return s, nil
}

// Main is a TestMain's body: it runs the tests with controller-runtime's global logger discarded, stops every
// stack and removes the binary, and returns the exit code for os.Exit: the tests', or 1 when they passed but a
// stack did not stop cleanly.
func (p *StackPool) Main(m *testing.M) int {
	logf.SetLogger(logr.Discard())
	code := m.Run()
	var errs []error
	for _, s := range p.all {
		errs = append(errs, s.Stop())
	}
	if p.dir != "" {
		errs = append(errs, os.RemoveAll(p.dir))
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the control planes:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// buildController builds the controller binary into a new temporary directory.
func buildController() (binary, dir string, err error) {
	dir, err = os.MkdirTemp("", "gvisor-envtest-controller-")
	if err != nil {
		return "", "", err
	}
	binary = filepath.Join(dir, "gardener-extension-runtime-gvisor")
	if out, err := exec.Command("go", "build", "-o", binary, controllerPackage).CombinedOutput(); err != nil {
		return "", dir, fmt.Errorf("go build %s: %w\n%s", controllerPackage, err, out)
	}
	return binary, dir, nil
}
