// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
)

// installationRulesFile holds the alerts on the installation, over the shoot's kube-state-metrics.
const installationRulesFile = "charts/internal/gvisor-monitoring/rules/gvisor-installation.rules.yaml"

// ksm are the labels Gardener's shoot kube-state-metrics series carry in the shoot Prometheus (its ScrapeConfig
// kube-state-metrics: job and instance set to kube-state-metrics, type from its Service).
func ksm(labels map[string]string) map[string]string {
	out := map[string]string{"job": "kube-state-metrics", "instance": "kube-state-metrics", "type": "shoot"}
	for k, v := range labels {
		out[k] = v
	}
	return out
}

// TestInstallationAlerts runs the installation alerts in promtool on series in kube-state-metrics' format (the
// metric names and labels kube-state-metrics v2 exposes for a DaemonSet and its pods), for what a real node cannot
// wait for: the 15 minutes and a rollout over 30 nodes (test/e2e's TestReproveOnRealNode judges the alerts on a real
// kube-state-metrics' series of a real failed re-proof). Worker pool pool-a has 3 nodes; at minute 10 node-2's
// installation pod's idle container restarts, which is what gvisor-idle reprove does when its sandbox proof fails
// (cmd/gvisor-idle: exit 1 on a failed proof), and from minute 5 one node of the pool is unavailable.
// GVisorSandboxProofFailed fires for node-2 right after the restart and not before; GVisorNotReadyOnNodes fires for
// pool-a after its 15 minutes and not at 19. Pool pool-b rolls an update over 30 nodes (one unavailable at a time):
// no alert while the rollout progresses, the alert once it is stuck. kube-proxy's unavailable pods never count.
func TestInstallationAlerts(t *testing.T) {
	r := ruleTest{rules: installationRulesFile}
	pods := map[string]string{"node-1": "gvisor-installation-pool-a-4xk2p", "node-2": "gvisor-installation-pool-a-9qz7m", "node-3": "gvisor-installation-pool-a-b2c8d"}
	for node, pod := range pods {
		r.addRawSeries("kube_pod_info", ksm(map[string]string{"namespace": "kube-system", "pod": pod, "node": node, "uid": "uid-" + pod,
			"host_ip": "10.250.0.1", "pod_ip": "100.64.0.1", "created_by_kind": "DaemonSet", "created_by_name": "gvisor-installation-pool-a",
			"priority_class": "system-node-critical", "host_network": "false"}), "1x60")
		restarts := "0x60"
		if node == "node-2" {
			restarts = "0x9 1x50"
		}
		r.addRawSeries("kube_pod_container_status_restarts_total", ksm(map[string]string{"namespace": "kube-system", "pod": pod, "uid": "uid-" + pod,
			"container": "idle"}), restarts)
	}
	r.addRawSeries("kube_daemonset_status_number_unavailable", ksm(map[string]string{"namespace": "kube-system", "daemonset": "gvisor-installation-pool-a"}), "0x4 1x55")
	// pool-a is not rolling: all 3 pods updated.
	for _, m := range []string{"kube_daemonset_status_updated_number_scheduled", "kube_daemonset_status_desired_number_scheduled"} {
		r.addRawSeries(m, ksm(map[string]string{"namespace": "kube-system", "daemonset": "gvisor-installation-pool-a"}), "3x60")
	}
	// pool-b (30 nodes) rolls an update node by node, one unavailable at a time, a node a minute until 25 are
	// done; then the rollout is stuck on a node that does not turn Ready.
	pb := ksm(map[string]string{"namespace": "kube-system", "daemonset": "gvisor-installation-pool-b"})
	r.addRawSeries("kube_daemonset_status_number_unavailable", pb, "1x60")
	r.addRawSeries("kube_daemonset_status_desired_number_scheduled", pb, "30x60")
	r.addRawSeries("kube_daemonset_status_updated_number_scheduled", pb, "0+1x25 25x35")
	// Another DaemonSet of kube-system with unavailable pods must not count.
	r.addRawSeries("kube_daemonset_status_number_unavailable", ksm(map[string]string{"namespace": "kube-system", "daemonset": "kube-proxy-pool-a"}), "2x60")

	checkProofPanel(t, r.series, pods)
	r.expectAlert("GVisorSandboxProofFailed", "9m", nil, nil)
	r.expectAlert("GVisorSandboxProofFailed", "11m", map[string]string{"namespace": "kube-system", "pod": pods["node-2"], "node": "node-2",
		"severity": "warning", "type": "shoot", "visibility": "all"}, map[string]string{
		"summary": "the gVisor sandbox proof failed on node node-2",
		"description": "The gVisor installation pod " + pods["node-2"] + " on node node-2 could not start a gVisor sandbox when it proved the node " +
			"again (its idle container restarted within the last 15 minutes): gVisor pods do not start there. Its termination message says why " +
			"(kubectl -n kube-system get pod " + pods["node-2"] + " -o jsonpath='{.status.containerStatuses[?(@.name==\"idle\")].lastState.terminated.message}'), " +
			"for example a gVisor release missing on the node or a containerd that no longer has the runsc handler.",
	})
	// pool-a from minute 20 (unavailable since 5, for 15m); pool-b not while its rollout progresses (until minute 25,
	// one node unavailable all along), then once no node was updated for 15 minutes (from 40) and 15 more (its for).
	r.expectAlert("GVisorNotReadyOnNodes", "19m", nil, nil)
	r.expectAlerts("GVisorNotReadyOnNodes", "21m", notReady("pool-a", 1))
	r.expectAlerts("GVisorNotReadyOnNodes", "50m", notReady("pool-a", 1))
	r.expectAlerts("GVisorNotReadyOnNodes", "56m", notReady("pool-a", 1), notReady("pool-b", 1))
	r.run(t)
}

// notReady is the GVisorNotReadyOnNodes alert of pool with n nodes unavailable.
func notReady(pool string, n int) expAlert {
	nodes := strconv.Itoa(n)
	return expAlert{
		labels: map[string]string{"daemonset": "gvisor-installation-" + pool, "pool": pool, "severity": "warning", "type": "shoot", "visibility": "all"},
		annotations: map[string]string{
			"summary": "gVisor is not ready on " + nodes + " node(s) of worker pool " + pool,
			"description": "The gVisor installation pod is not Ready on " + nodes + " node(s) of worker pool " + pool + " for 15 minutes: pods with " +
				"runtimeClassName gvisor fail there. The pool's ContainerRuntime condition EveryNodeReady names the nodes and why (kubectl -n " +
				"kube-system get pods -o wide -l app.kubernetes.io/name=gvisor-installation,app.kubernetes.io/instance=" + pool + ").",
		},
	}
}

// checkProofPanel evaluates the dashboard's panels on kube-state-metrics' series (the failed re-proofs per node)
// on the same series: 0 for every node before node-2's idle container restarts, about 1 for node-2 after it (an
// increase over an hour, extrapolated), still 0 for the others.
func checkProofPanel(t *testing.T, series []string, pods map[string]string) {
	t.Helper()
	exprs, err := monitoring.KubeStateMetricsQueries()
	if err != nil {
		t.Fatal(err)
	}
	if len(exprs) == 0 {
		t.Fatal("no dashboard panel reads kube-state-metrics: the failed re-proofs panel is gone")
	}
	results := queryAt(t, nil, series, exprs, []int{9, 11, 59})
	for _, expr := range exprs {
		for _, minute := range []int{9, 11, 59} {
			got := map[string]float64{}
			for _, r := range results[expr][minute] {
				got[legendNode(r.labels)] = r.value
			}
			for node := range pods {
				failed := node == "node-2" && minute > 10
				if v, ok := got[node]; !ok || (failed && v < 0.5) || (!failed && v != 0) {
					t.Errorf("panel query %q at %dm: node %s has %v (present %v), want %s", expr, minute, node, v, ok, map[bool]string{true: "about 1", false: "0"}[failed])
				}
			}
		}
	}
}

// legendNode is the node label of promtool's printed label set.
func legendNode(labels string) string {
	_, rest, _ := strings.Cut(labels, `node="`)
	node, _, _ := strings.Cut(rest, `"`)
	return node
}
