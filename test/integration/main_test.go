// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package integration walks the ContainerRuntime lifecycle on a real control plane (test/envtest): kube-apiserver,
// etcd, kube-controller-manager, gardener-resource-manager and our controller manager started through the
// binary's own entry point. The "seed" and the "shoot" are the same API server, so only one shoot may hold
// objects at a time (the RuntimeClass is cluster-scoped): the tests run one after another and each cleans up.
package integration

import (
	"os"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// shared is the one stack of this test binary (controller names are process-global, so there can be only one).
var shared = &envtest.SharedStack{Options: envtest.StackOptions{Options: envtest.Options{Audit: true}}}

// stack starts the stack on first use; a test that cannot get the binaries skips (fails under make test).
func stack(t *testing.T) *envtest.Stack {
	t.Helper()
	return shared.Get(t)
}

func TestMain(m *testing.M) { os.Exit(shared.Main(m)) }
