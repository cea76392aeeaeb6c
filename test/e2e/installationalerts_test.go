// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/shootprometheus"
)

// The installation alerts' signals as the shoot Prometheus sees them: its ALERTS series and the pool's recording rule.
const (
	proofFailedAlert = `ALERTS{alertname="GVisorSandboxProofFailed", alertstate="firing", node=%q}`
	notReadyAlert    = `ALERTS{alertname="GVisorNotReadyOnNodes", pool=%q}`
	unavailableRule  = `pool:gvisor_installation_nodes_unavailable:max{pool=%q}`
	idleRestarts     = `kube_pod_container_status_restarts_total{namespace="kube-system", pod=~"gvisor-installation-.+", container="idle"}`
)

// installationAlerts watches the installation alerts of one pool and node on a real shoot Prometheus that scrapes
// the shoot's real kube-state-metrics (Gardener's), while the test breaks and repairs gVisor on the node.
type installationAlerts struct {
	p          *shootprometheus.Prometheus
	pool, node string
}

// healthy waits until kube-state-metrics' series of the pool's idle container are in the Prometheus (so that a
// restart is an increase over a sample before it) and checks that no installation alert is active and the pool's
// recording rule counts no unavailable node.
func (a installationAlerts) healthy(ctx context.Context, t *testing.T) {
	t.Helper()
	checkKubeStateMetricsTarget(ctx, t, a.p)
	a.await(ctx, t, time.Minute, "kube-state-metrics' idle-container restarts of the installation pods", idleRestarts, func(s []shootprometheus.Sample) error {
		for _, x := range s {
			if x.Float() != 0 {
				return fmt.Errorf("the idle container of %s restarted %.0f times on a healthy node", x.Metric["pod"], x.Float())
			}
		}
		return atLeastOne(s)
	})
	a.await(ctx, t, time.Minute, "the pool's recording rule at 0", fmt.Sprintf(unavailableRule, a.pool), valueIs(0))
	for _, q := range []string{fmt.Sprintf(proofFailedAlert, a.node), fmt.Sprintf(notReadyAlert, a.pool)} {
		if s, err := a.p.Query(q); err != nil || len(s) != 0 {
			t.Errorf("%s on a healthy node: %+v %v", q, s, err)
		}
	}
}

// broken checks what the shoot Prometheus says once the node's re-proof failed: GVisorSandboxProofFailed fires for
// the node (the idle container's restart, as kube-state-metrics counts it), the pool's recording rule counts the
// node unavailable and GVisorNotReadyOnNodes is pending (promtool judges that it fires after its 15 minutes on
// these series held: judgeHeld), and the dashboard's re-proof panel shows the failure on the node.
func (a installationAlerts) broken(ctx context.Context, t *testing.T) {
	t.Helper()
	a.await(ctx, t, 2*time.Minute, "GVisorSandboxProofFailed firing for the node", fmt.Sprintf(proofFailedAlert, a.node), atLeastOne)
	a.await(ctx, t, 2*time.Minute, "the pool's recording rule counting the node", fmt.Sprintf(unavailableRule, a.pool), valueIs(1))
	a.await(ctx, t, time.Minute, "GVisorNotReadyOnNodes pending for the pool", fmt.Sprintf(notReadyAlert, a.pool), func(s []shootprometheus.Sample) error {
		if len(s) != 1 || s[0].Metric["alertstate"] != "pending" {
			return fmt.Errorf("want one pending alert, got %+v", s)
		}
		return nil
	})
	judgeHeld(t, a.p, "GVisorNotReadyOnNodes", fmt.Sprintf(`{__name__=~"kube_daemonset_status_.+", namespace="kube-system", daemonset="gvisor-installation-%s"}`, a.pool), a.forOf(t, "GVisorNotReadyOnNodes"))
	query := reproofPanelQuery(t)
	a.await(ctx, t, time.Minute, "the dashboard's failed re-proofs of the node", query, func(s []shootprometheus.Sample) error {
		for _, x := range s {
			if x.Metric["node"] == a.node && x.Float() > 0 {
				return nil
			}
		}
		return fmt.Errorf("no failed re-proof on node %s: %+v", a.node, s)
	})
	t.Logf("the shoot Prometheus on kube-state-metrics' real series: GVisorSandboxProofFailed firing for node %s, GVisorNotReadyOnNodes pending for pool %s", a.node, a.pool)
}

// repaired checks that, once the node is healthy again, the pool's recording rule is back at 0 and
// GVisorNotReadyOnNodes is no longer pending (GVisorSandboxProofFailed keeps firing for its 15-minute window: the
// failure happened).
func (a installationAlerts) repaired(ctx context.Context, t *testing.T) {
	t.Helper()
	a.await(ctx, t, time.Minute, "the pool's recording rule back at 0", fmt.Sprintf(unavailableRule, a.pool), valueIs(0))
	a.await(ctx, t, time.Minute, "GVisorNotReadyOnNodes inactive", fmt.Sprintf(notReadyAlert, a.pool), func(s []shootprometheus.Sample) error {
		if len(s) != 0 {
			return fmt.Errorf("still %+v", s)
		}
		return nil
	})
}

// forOf is the for of the alert as the Prometheus loaded it.
func (a installationAlerts) forOf(t *testing.T, alertname string) time.Duration {
	t.Helper()
	rules, err := a.p.Rules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.Type == "alerting" && r.Name == alertname {
			return time.Duration(r.Duration) * time.Second
		}
	}
	t.Fatalf("the shoot Prometheus has no alert %s", alertname)
	return 0
}

// await polls the query until check accepts its result.
func (a installationAlerts) await(ctx context.Context, t *testing.T, timeout time.Duration, what, query string, check func([]shootprometheus.Sample) error) {
	t.Helper()
	err := e2e.Poll(ctx, timeout, prometheusInterval, what, func() error {
		s, err := a.p.Query(query)
		if err != nil {
			return err
		}
		if err := check(s); err != nil {
			return fmt.Errorf("%s: %w", query, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func atLeastOne(s []shootprometheus.Sample) error {
	if len(s) == 0 {
		return errors.New("no series")
	}
	return nil
}

func valueIs(v float64) func([]shootprometheus.Sample) error {
	return func(s []shootprometheus.Sample) error {
		if len(s) != 1 || s[0].Float() != v {
			return fmt.Errorf("want one series of value %v, got %+v", v, s)
		}
		return nil
	}
}

// reproofPanelQuery is the query of the shoot dashboard's panel on kube-state-metrics' series (the failed
// re-proofs per node).
func reproofPanelQuery(t *testing.T) string {
	t.Helper()
	queries, err := monitoring.KubeStateMetricsQueries()
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) != 1 {
		t.Fatalf("want one dashboard query on kube-state-metrics' series (the failed re-proofs), got %q", queries)
	}
	return queries[0]
}
