// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package integration walks the ContainerRuntime lifecycle on a real control plane (test/envtest): kube-apiserver,
// etcd, kube-controller-manager, gardener-resource-manager and our controller manager started through the
// binary's own entry point. The "seed" and the "shoot" are the same API server, so only one shoot may hold
// objects at a time (the RuntimeClass is cluster-scoped): the tests run one after another and each cleans up.
package integration

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// shared is the one stack of this test binary (controller names are process-global, so there can be only one).
var shared struct {
	once  sync.Once
	stack *envtest.Stack
	err   error
}

// stack starts the stack on first use; a test that cannot get the binaries skips (fails under make test).
func stack(t *testing.T) *envtest.Stack {
	t.Helper()
	assets := realcomponents.KubebuilderAssets(t)
	shared.once.Do(func() {
		shared.stack, shared.err = envtest.StartStack(context.Background(), envtest.StackOptions{
			Options: envtest.Options{AssetsDir: assets, Audit: true},
		})
	})
	if shared.err != nil {
		t.Fatalf("starting the control plane: %v", shared.err)
	}
	return shared.stack
}

func TestMain(m *testing.M) {
	// envtest logs through controller-runtime's global logger; its errors come back as errors anyway.
	logf.SetLogger(logr.Discard())
	code := m.Run()
	if shared.stack != nil {
		if err := shared.stack.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}
