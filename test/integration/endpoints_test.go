// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package integration

import (
	"context"
	"net/http"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// TestEndpoints: the probes the extension chart's Deployment uses answer, metrics are served, and the heartbeat
// Lease that gardenlet watches is renewed in the extension's namespace.
func TestEndpoints(t *testing.T) {
	t.Parallel()
	s := stack(t)
	ctx := context.Background()
	for _, path := range []string{"/healthz", "/readyz"} {
		code, body, err := envtest.HTTPGet(ctx, s.HealthURL+path)
		if err != nil || code != http.StatusOK {
			t.Errorf("GET %s: %d %q %v", path, code, body, err)
		}
	}
	code, body, err := envtest.HTTPGet(ctx, s.MetricsURL+"/metrics")
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", code, err)
	}
	if !strings.Contains(body, `controller_runtime_reconcile_total{controller="containerruntime"`) {
		t.Errorf("/metrics has no reconcile counter of the containerruntime controller")
	}

	lease := &coordinationv1.Lease{}
	eventually(t, "heartbeat Lease", func() error {
		return s.Client.Get(ctx, client.ObjectKey{Namespace: envtest.ExtensionNamespace, Name: "gardener-extension-heartbeat"}, lease)
	})
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != "runtime-gvisor" || lease.Spec.RenewTime == nil {
		t.Errorf("heartbeat Lease: holder %v, renewTime %v", lease.Spec.HolderIdentity, lease.Spec.RenewTime)
	}
}
