// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// KubeControllerManagerControllers are the kube-controller-manager controllers we run (see the package doc for why).
const KubeControllerManagerControllers = "garbagecollector,namespace,daemonset"

func startKubeControllerManager(ctx context.Context, assetsDir, dir, kubeconfig string) (*process, error) {
	ports, err := testutil.FreeLoopbackPorts(1)
	if err != nil {
		return nil, fmt.Errorf("kube-controller-manager: finding a free port: %w", err)
	}
	port := ports[0]
	p, err := startProcess("kube-controller-manager", filepath.Join(dir, "kube-controller-manager.log"),
		filepath.Join(assetsDir, "kube-controller-manager"),
		"--kubeconfig="+kubeconfig,
		"--controllers="+KubeControllerManagerControllers,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--cert-dir="+filepath.Join(dir, "kcm-certs"),
		// The garbage collector re-discovers resources periodically; CRDs installed before start are found at once.
		"--concurrent-gc-syncs=5",
	)
	if err != nil {
		return nil, err
	}
	// /healthz is on kube-controller-manager's always-allowed paths, so no client credentials are needed.
	if err := p.waitHealthy(ctx, fmt.Sprintf("https://127.0.0.1:%d/healthz", port), 60*time.Second); err != nil {
		return nil, errors.Join(err, p.stop())
	}
	return p, nil
}
