// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestSandboxMetricsOnRealNode turns sandbox metrics on for the landscape (the extension chart's
// controller.sandboxMetrics, installed with helm) on the newest containerd release, runs a shoot owner's gVisor pod,
// and scrapes the node's metric server the way Gardener's shoot Prometheus scrapes node targets: through the API
// server's pod proxy (/api/v1/namespaces/kube-system/pods/<pod>:<port>/proxy/metrics), finding that pod's
// runsc_sandbox_memory_usage_bytes. It measures the server's memory next to the idle container's, then the pool
// opts out in its providerConfig and the DaemonSet rolls to pods without the server. Last the pool turns debug on
// and the pods roll with the keeper of the node's debug logs (debugLogsKept).
func TestSandboxMetricsOnRealNode(t *testing.T) {
	releases := kubenode.Releases(t)
	c := releases[len(releases)-1]
	// 158 s alone on an idle machine, three pod rollouts included; the node phase runs other real nodes beside it.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	n, shoot := onRealNode(ctx, t, c, realcomponents.Helm(t), thisChart, ourImages(t), map[string]any{"sandboxMetrics": true})
	key := client.ObjectKeyFromObject(shoot.ContainerRuntime)
	pool := shoot.ContainerRuntime.Spec.WorkerPool.Name
	_, err := e2e.WaitConditions(ctx, n.Client(), key, 3*time.Minute, healthy)
	testutil.Must(t, err)
	pod, err := e2e.InstallationPod(ctx, n.Client(), pool, nodeName, time.Minute, withMetricServer)
	if err != nil {
		t.Fatalf("%v\n--- kubelet ---\n%s", err, n.LogTail("kubelet", 30))
	}
	runGVisorPod(ctx, t, n, "default")

	cs, err := kubernetes.NewForConfig(n.RESTConfig())
	testutil.Must(t, err)
	var scrape, line string
	err = e2e.Poll(ctx, time.Minute, 2*time.Second, "the gVisor pod's memory through the API server's pod proxy", func() error {
		raw, err := cs.CoreV1().Pods(pod.Namespace).ProxyGet("http", pod.Name, strconv.Itoa(render.MetricServerPort), "/metrics", nil).DoRaw(ctx)
		if err != nil {
			return fmt.Errorf("GET pods/%s:%d/proxy/metrics: %w: %s", pod.Name, render.MetricServerPort, err, raw)
		}
		scrape = string(raw)
		if line = sampleLine(scrape, "runsc_sandbox_memory_usage_bytes{", `pod_name="gvisor-app"`, `namespace_name="default"`); line == "" {
			return fmt.Errorf("no runsc_sandbox_memory_usage_bytes of default/gvisor-app in the scrape")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%v\n--- last scrape ---\n%s\n--- metric-server log ---\n%s", err, scrape, containerLog(ctx, cs, pod, render.MetricServerContainer))
	}
	t.Logf("through the pod proxy: %s", line)
	// name{labels} value [timestamp]
	if f := strings.Fields(line); len(f) < 2 || !positive(f[1]) {
		t.Errorf("the gVisor pod's memory should be a positive number: %s", line)
	}
	for _, want := range []string{"runsc_container_cpu_usage_seconds_total{", "runsc_num_sandboxes_broken_metrics 0"} {
		if !strings.Contains(scrape, want) {
			t.Errorf("the scrape lacks %q", want)
		}
	}
	checkShootPrometheus(ctx, t, n, key.Namespace, pool, pod.Name)
	measureMetricServer(t)

	// The pool opts out: its providerConfig overrides the landscape's default, the pods roll without the server.
	setProviderConfig(ctx, t, n, key, []byte(`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","sandboxMetrics":{"enabled":false}}`))
	if _, err := e2e.InstallationPod(ctx, n.Client(), pool, nodeName, 3*time.Minute, withoutMetricServer); err != nil {
		t.Fatal(err)
	}
	_, err = e2e.WaitConditions(ctx, n.Client(), key, 3*time.Minute, healthy)
	testutil.Must(t, err)
	debugLogsKept(ctx, t, n, key, pool)
}

// withMetricServer is an InstallationPod check: Ready, with the metric server container running.
func withMetricServer(p *corev1.Pod) error {
	if err := e2e.PodReady(p); err != nil {
		return err
	}
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == render.MetricServerContainer && s.State.Running != nil && s.Ready {
			return nil
		}
	}
	return fmt.Errorf("pod %s: container %s not running: %+v", p.Name, render.MetricServerContainer, p.Status.ContainerStatuses)
}

// withoutMetricServer is an InstallationPod check: Ready, and no metric server container.
func withoutMetricServer(p *corev1.Pod) error {
	if slices.ContainsFunc(p.Spec.Containers, func(c corev1.Container) bool { return c.Name == render.MetricServerContainer }) {
		return fmt.Errorf("pod %s still runs %s", p.Name, render.MetricServerContainer)
	}
	return e2e.PodReady(p)
}

// sampleLine is the first sample line of the scrape that starts with prefix and contains every label of labels.
func sampleLine(scrape, prefix string, labels ...string) string {
	for _, l := range strings.Split(scrape, "\n") {
		if !strings.HasPrefix(l, prefix) {
			continue
		}
		if !slices.ContainsFunc(labels, func(s string) bool { return !strings.Contains(l, s) }) {
			return l
		}
	}
	return ""
}

// containerLog is the log of one container of p, for failure messages.
func containerLog(ctx context.Context, cs kubernetes.Interface, p *corev1.Pod, container string) string {
	raw, err := cs.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: container}).DoRaw(ctx)
	if err != nil {
		return err.Error()
	}
	return string(raw)
}

// measureMetricServer logs the deployed metric server's footprint on the real node (VmRSS, RssAnon, and its
// container's memory cgroup) next to the idle container's gvisor-idle, for BENCHMARKS.md.
func measureMetricServer(t *testing.T) {
	t.Helper()
	ms := findProcess(t, "/gvisor-metric-server\x00")
	idle := findProcess(t, "/gvisor-idle\x00reprove\x00")
	if ms == 0 {
		t.Error("no gvisor-metric-server process on the node")
		return
	}
	t.Logf("gvisor-metric-server (pid %d, 1 gVisor pod, scraped): VmRSS %d KiB, RssAnon %d KiB, VmHWM %d KiB", ms,
		statusKiB(ms, "VmRSS:"), statusKiB(ms, "RssAnon:"), statusKiB(ms, "VmHWM:"))
	if idle != 0 {
		t.Logf("gvisor-idle reprove (pid %d): VmRSS %d KiB, RssAnon %d KiB", idle, statusKiB(idle, "VmRSS:"), statusKiB(idle, "RssAnon:"))
	}
	logCgroup(t, "metric-server", memoryCgroup(ms))
}

// logCgroup logs the memory use of one container's cgroup (cgroup v1 or v2 file names).
func logCgroup(t *testing.T, what, dir string) {
	t.Helper()
	if dir == "" {
		return
	}
	for _, f := range []string{"memory.usage_in_bytes", "memory.current", "memory.max_usage_in_bytes", "memory.peak"} {
		if data, err := readTrim(dir, f); err == nil {
			t.Logf("%s container's memory cgroup: %s = %s", what, f, data)
		}
	}
}

func readTrim(dir, name string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	return strings.TrimSpace(string(data)), err
}

func positive(s string) bool {
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && v > 0
}
