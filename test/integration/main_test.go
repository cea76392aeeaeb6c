// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package integration walks the ContainerRuntime lifecycle on a real control plane (test/envtest): kube-apiserver,
// etcd, kube-controller-manager, gardener-resource-manager and our controller manager started through the
// binary. The "seed" and the "shoot" are the same API server, so only one shoot may hold objects of a stack at a
// time (the RuntimeClass is cluster-scoped): the tests run in parallel, each on a stack of its own while it runs
// (envtest.StackPool), and each cleans up for the next test on its stack.
package integration

import (
	"os"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// stacks is how many control planes the tests share: most of a test's time is spent waiting on the controllers
// and gardener-resource-manager, so three keep the 2-core machine busy where one left it idle; each more costs a
// control plane's start and memory for little gain.
const stacks = 3

// pool lends each test a stack of its own while it runs.
var pool = &envtest.StackPool{Options: envtest.StackOptions{Options: envtest.Options{Audit: true}}, Size: stacks}

// stack lends t a stack until it ends, starting one if none is free; a test that cannot get the binaries skips
// (fails under make test). Every test calls t.Parallel first.
func stack(t *testing.T) *envtest.Stack {
	t.Helper()
	return pool.Get(t)
}

func TestMain(m *testing.M) { os.Exit(pool.Main(m)) }
