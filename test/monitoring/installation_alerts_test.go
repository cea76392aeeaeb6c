// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"testing"
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
// metric names and labels kube-state-metrics v2 exposes for a DaemonSet and its pods; not captured from a running
// kube-state-metrics, which the tests do not build): worker pool pool-a has 3 nodes; at minute 10 node-2's
// installation pod's idle container restarts, which is what gvisor-idle reprove does when its sandbox proof fails
// (cmd/gvisor-idle: exit 1 on a failed proof), and from minute 5 one node of the pool is unavailable.
// GVisorSandboxProofFailed fires for node-2 right after the restart and not before; GVisorNotReadyOnNodes fires for
// the pool after its 15 minutes and not at 19.
func TestInstallationAlerts(t *testing.T) {
	r := ruleTest{rules: installationRulesFile}
	pods := map[string]string{"node-1": "gvisor-installation-pool-a-4xk2p", "node-2": "gvisor-installation-pool-a-9qz7m", "node-3": "gvisor-installation-pool-a-b2c8d"}
	for node, pod := range pods {
		r.addRawSeries("kube_pod_info", ksm(map[string]string{"namespace": "kube-system", "pod": pod, "node": node, "uid": "uid-" + pod,
			"host_ip": "10.250.0.1", "pod_ip": "100.64.0.1", "created_by_kind": "DaemonSet", "created_by_name": "gvisor-installation-pool-a",
			"priority_class": "system-node-critical", "host_network": "false"}), "1x30")
		restarts := "0x30"
		if node == "node-2" {
			restarts = "0x9 1x20"
		}
		r.addRawSeries("kube_pod_container_status_restarts_total", ksm(map[string]string{"namespace": "kube-system", "pod": pod, "uid": "uid-" + pod,
			"container": "idle"}), restarts)
	}
	r.addRawSeries("kube_daemonset_status_number_unavailable", ksm(map[string]string{"namespace": "kube-system", "daemonset": "gvisor-installation-pool-a"}), "0x4 1x25")
	// Another DaemonSet of kube-system with unavailable pods must not count.
	r.addRawSeries("kube_daemonset_status_number_unavailable", ksm(map[string]string{"namespace": "kube-system", "daemonset": "kube-proxy-pool-a"}), "2x30")

	r.expectAlert("GVisorSandboxProofFailed", "9m", nil, nil)
	r.expectAlert("GVisorSandboxProofFailed", "11m", map[string]string{"namespace": "kube-system", "pod": pods["node-2"], "node": "node-2",
		"severity": "warning", "type": "shoot", "visibility": "all"}, map[string]string{
		"summary": "the gVisor sandbox proof failed on node node-2",
		"description": "The gVisor installation pod " + pods["node-2"] + " on node node-2 could not start a gVisor sandbox when it proved the node " +
			"again (its idle container restarted within the last 15 minutes): gVisor pods do not start there. Its termination message says why " +
			"(kubectl -n kube-system get pod " + pods["node-2"] + " -o jsonpath='{.status.containerStatuses[?(@.name==\"idle\")].lastState.terminated.message}'), " +
			"for example a gVisor release missing on the node or a containerd that no longer has the runsc handler.",
	})
	r.expectAlert("GVisorNotReadyOnNodes", "19m", nil, nil)
	r.expectAlert("GVisorNotReadyOnNodes", "21m", map[string]string{"daemonset": "gvisor-installation-pool-a", "pool": "pool-a",
		"severity": "warning", "type": "shoot", "visibility": "all"}, map[string]string{
		"summary": "gVisor is not ready on 1 node(s) of worker pool pool-a",
		"description": "The gVisor installation pod is not Ready on 1 node(s) of worker pool pool-a for 15 minutes: pods with runtimeClassName " +
			"gvisor fail there. The pool's ContainerRuntime condition EveryNodeReady names the nodes and why (kubectl -n kube-system get pods -o wide " +
			"-l app.kubernetes.io/name=gvisor-installation,app.kubernetes.io/instance=pool-a).",
	})
	r.run(t)
}
