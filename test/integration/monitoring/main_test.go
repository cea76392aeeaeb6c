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

var shared struct {
	once  sync.Once
	stack *envtest.Stack
	err   error
}

// stack starts the one stack of this binary on first use (controller names are process-global).
func stack(t *testing.T) *envtest.Stack {
	t.Helper()
	assets := realcomponents.KubebuilderAssets(t)
	shared.once.Do(func() {
		shared.stack, shared.err = envtest.StartStack(context.Background(), envtest.StackOptions{
			Options:        envtest.Options{AssetsDir: assets, Audit: true},
			ControllerArgs: []string{"--shoot-monitoring=true"},
		})
	})
	if shared.err != nil {
		t.Fatalf("starting the control plane: %v", shared.err)
	}
	return shared.stack
}

func TestMain(m *testing.M) {
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
