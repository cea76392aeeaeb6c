// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/shootprometheus"
)

// prometheusInterval is the test Prometheus' scrape and evaluation interval (a shoot Prometheus' is longer; the
// objects leave it to the Prometheus).
const prometheusInterval = 2 * time.Second

// memoryTolerance bounds the difference between the recording rule's per-pod memory and the sandbox's own series
// read a moment later through the pod proxy: an idle pod's sentry changes its accounting by a few pages.
const memoryTolerance = 1 << 20

// checkShootPrometheus runs a real Prometheus as the shoot's, on what prometheus-operator makes of the monitoring
// objects the controller deployed into the shoot namespace, and checks what a shoot owner's Plutono would show: the
// node's metric server is a healthy target with the pool's labels, the recording rule gives the gVisor pod's memory
// as the sandbox reports it, every rule evaluates without error and no gVisor alert fires on a healthy node.
func checkShootPrometheus(ctx context.Context, t *testing.T, n *kubenode.Node, namespace, pool string, installationPod string) {
	t.Helper()
	p := startShootPrometheus(ctx, t, n, namespace)

	checkKubeStateMetricsTarget(ctx, t, p)
	target := awaitHealthyTarget(ctx, t, p, "the metric server", map[string]string{"job": monitoring.ScrapeJob})
	wantPath := fmt.Sprintf("/api/v1/namespaces/kube-system/pods/%s:%d/proxy/metrics", installationPod, render.MetricServerPort)
	if !strings.HasSuffix(target.ScrapeURL, wantPath) || !strings.HasPrefix(target.ScrapeURL, "https://kube-apiserver:443/") {
		t.Errorf("the target's scrape URL %s, want https://kube-apiserver:443%s (the shoot API server's pod proxy)", target.ScrapeURL, wantPath)
	}
	for k, v := range map[string]string{"node": nodeName, "pool": pool, "type": "shoot", "pod": installationPod} {
		if target.Labels[k] != v {
			t.Errorf("the target's label %s = %q, want %q (labels %v)", k, target.Labels[k], v, target.Labels)
		}
	}

	const query = `namespace_pod:gvisor_sandbox_memory_usage_bytes:sum{namespace="default",pod="gvisor-app"}`
	var recorded shootprometheus.Sample
	err := e2e.Poll(ctx, time.Minute, time.Second, "the recording rule's memory of the gVisor pod", func() error {
		samples, err := p.Query(query)
		if err != nil {
			return err
		}
		if len(samples) != 1 {
			return fmt.Errorf("%s: %d series, want 1: %+v", query, len(samples), samples)
		}
		recorded = samples[0]
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if recorded.Metric["node"] != nodeName {
		t.Errorf("%s carries node %q, want %q", query, recorded.Metric["node"], nodeName)
	}
	direct := sandboxMemoryNow(ctx, t, n, installationPod)
	if diff := math.Abs(recorded.Float() - direct); diff > memoryTolerance {
		t.Errorf("the recording rule says %.0f bytes, the sandbox %.0f a moment later: %.0f apart, more than %d", recorded.Float(), direct, diff, memoryTolerance)
	}
	t.Logf("the shoot Prometheus (prometheus-operator's config) records the gVisor pod's memory: %.0f bytes (the sandbox's own series: %.0f)", recorded.Float(), direct)

	if running, err := p.Query(fmt.Sprintf(`node:gvisor_sandboxes_running:sum{node=%q}`, nodeName)); err != nil || len(running) != 1 || running[0].Float() < 1 {
		t.Errorf("sandboxes running on the node per the recording rule: %+v %v, want at least the gVisor pod's", running, err)
	}

	// Two evaluations after the series exist: every rule has run at least once on them.
	time.Sleep(2 * prometheusInterval)
	rules, err := p.Rules()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		t.Fatal("the shoot Prometheus loaded no rules from the PrometheusRule")
	}
	for _, r := range rules {
		if r.Health != "ok" || r.LastError != "" {
			t.Errorf("rule %s: health %q, %s", r.Name, r.Health, r.LastError)
		}
		if r.Type == "alerting" && r.State != "inactive" {
			t.Errorf("alert %s is %s on a healthy node with one gVisor pod", r.Name, r.State)
		}
	}
	t.Logf("the shoot Prometheus evaluates %d rules of the PrometheusRule, all healthy, no alert pending or firing", len(rules))
	checkDashboard(ctx, t, n, p)
}

// checkKubeStateMetricsTarget waits until the shoot's kube-state-metrics is a healthy target of the shoot Prometheus,
// found by Gardener's ScrapeConfig through its Service, with the labels Gardener's relabeling gives it.
func checkKubeStateMetricsTarget(ctx context.Context, t *testing.T, p *shootprometheus.Prometheus) {
	t.Helper()
	awaitHealthyTarget(ctx, t, p, "the shoot's kube-state-metrics", map[string]string{"job": "kube-state-metrics", "type": "shoot"})
}

// awaitHealthyTarget waits until the shoot Prometheus has a healthy target with labels, and returns it.
func awaitHealthyTarget(ctx context.Context, t *testing.T, p *shootprometheus.Prometheus, what string, labels map[string]string) shootprometheus.Target {
	t.Helper()
	var target shootprometheus.Target
	err := e2e.Poll(ctx, time.Minute, time.Second, what+" as a healthy target of the shoot Prometheus", func() error {
		targets, err := p.Targets()
		if err != nil {
			return err
		}
		for _, tg := range targets {
			match := true
			for k, v := range labels {
				match = match && tg.Labels[k] == v
			}
			if !match {
				continue
			}
			target = tg
			if tg.Health != "up" {
				return fmt.Errorf("target %s: %s %s", tg.ScrapeURL, tg.Health, tg.LastError)
			}
			return nil
		}
		return fmt.Errorf("no target with %v among %+v", labels, targets)
	})
	if err != nil {
		t.Fatal(err)
	}
	return target
}

// startShootPrometheus runs a real Prometheus as the shoot's in the node's network, where the API server serves on
// NodeIP:443 as a shoot's on kube-apiserver:443, on what prometheus-operator makes of the shoot namespace's
// monitoring objects, and beside it the shoot's kube-state-metrics as Gardener deploys it, which the Prometheus
// scrapes with Gardener's ScrapeConfig (the installation alerts' input). Both stop with the test.
func startShootPrometheus(ctx context.Context, t *testing.T, n *kubenode.Node, namespace string) *shootprometheus.Prometheus {
	t.Helper()
	prom, config := realcomponents.Prometheus(t)
	tools := shootprometheus.Tools{Prometheus: prom, Config: config, KubeStateMetrics: realcomponents.KubeStateMetrics(t)}
	ca, err := n.CA()
	if err != nil {
		t.Fatal(err)
	}
	env := shootprometheus.Env{
		Client: n.Client(), Command: n.NetCommand, Dial: n.Dial, Listen: n.Listen, CA: ca,
		APIServerIP: kubenode.NodeIP, ListenAddress: "127.0.0.1:9090",
	}
	p, err := shootprometheus.Start(ctx, env, tools, namespace, t.TempDir(), prometheusInterval)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("--- Prometheus ---\n%s", tailLines(p.Log(), 60))
		}
	})
	return p
}

// sandboxMemoryNow reads the gVisor pod's runsc_sandbox_memory_usage_bytes through the pod proxy.
func sandboxMemoryNow(ctx context.Context, t *testing.T, n *kubenode.Node, installationPod string) float64 {
	t.Helper()
	cs, err := kubernetes.NewForConfig(n.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := cs.CoreV1().Pods("kube-system").ProxyGet("http", installationPod, strconv.Itoa(render.MetricServerPort), "/metrics", nil).DoRaw(ctx)
	if err != nil {
		t.Fatalf("scraping %s through the pod proxy: %v", installationPod, err)
	}
	line := sampleLine(string(raw), "runsc_sandbox_memory_usage_bytes{", `pod_name="gvisor-app"`, `namespace_name="default"`)
	f := strings.Fields(line)
	if len(f) < 2 {
		t.Fatalf("no runsc_sandbox_memory_usage_bytes of default/gvisor-app in the scrape:\n%s", raw)
	}
	v, err := strconv.ParseFloat(f[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
