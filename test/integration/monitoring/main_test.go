// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package monitoring_test runs the controller with shoot monitoring on (--shoot-monitoring, the extension chart's
// default) on a real control plane (test/envtest: kube-apiserver with prometheus-operator's CRDs as Gardener ships
// them, etcd, kube-controller-manager, gardener-resource-manager), and judges the seed objects it writes: valid
// under the CRDs' schemas with strict field validation, equal to pkg/monitoring's, not rewritten when unchanged,
// and gone with the shoot's last gvisor pool. Its own test binary, so that the other integration tests keep
// running the controller as they always did.
package monitoring_test

import (
	"os"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// shared is the one stack of this test binary (controller names are process-global), its controller with shoot
// monitoring on.
var shared = &envtest.SharedStack{Options: envtest.StackOptions{
	Options:        envtest.Options{Audit: true},
	ControllerArgs: []string{"--shoot-monitoring=true"},
}}

// stack starts the one stack of this binary on first use.
func stack(t *testing.T) *envtest.Stack {
	t.Helper()
	return shared.Get(t)
}

func TestMain(m *testing.M) { os.Exit(shared.Main(m)) }
