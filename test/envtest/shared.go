// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// SharedStack is a test binary's one Stack: the controller-runtime controller names are process-global, so a
// process holds at most one Stack and its tests share it. The first test that asks starts it (Get); the binary's
// TestMain stops it after the last test (Main).
type SharedStack struct {
	// Options configure the stack; an empty AssetsDir is the control plane's binaries from KUBEBUILDER_ASSETS
	// (realcomponents.KubebuilderAssets).
	Options StackOptions

	once  sync.Once
	stack *Stack
	err   error
}

// Get starts the stack on first use and returns it. A test that cannot get the control plane's binaries skips
// (fails under REQUIRE_REAL_COMPONENTS=1); one whose stack did not start fails, as every later one does.
func (s *SharedStack) Get(t testing.TB) *Stack {
	t.Helper()
	opts := s.Options
	if opts.AssetsDir == "" {
		opts.AssetsDir = realcomponents.KubebuilderAssets(t)
	}
	s.once.Do(func() { s.stack, s.err = StartStack(context.Background(), opts) })
	if s.err != nil {
		t.Fatalf("starting the control plane: %v", s.err)
	}
	return s.stack
}

// Main is a TestMain's body: it runs the tests with controller-runtime's global logger discarded (envtest logs
// through it; its errors come back as errors anyway), stops the stack if a test started it, and returns the exit
// code for os.Exit: the tests', or 1 when they passed but the stack did not stop cleanly.
func (s *SharedStack) Main(m *testing.M) int {
	logf.SetLogger(logr.Discard())
	code := m.Run()
	if s.stack != nil {
		if err := s.stack.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}
