// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
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
		t.Fatalf("%v\n--- last scrape ---\n%s\n--- metric-server log ---\n%s\n--- metric-collector log ---\n%s", err, scrape,
			containerLog(ctx, cs, pod, render.MetricServerContainer), containerLog(ctx, cs, pod, render.MetricCollectorContainer))
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
	front, collector := measureMetricServer(t)
	frontHoldsNoSandbox(t, n, front, collector)

	// The pool opts out: its providerConfig overrides the landscape's default, the pods roll without the server.
	setProviderConfig(ctx, t, n, key, []byte(`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","sandboxMetrics":{"enabled":false}}`))
	if _, err := e2e.InstallationPod(ctx, n.Client(), pool, nodeName, 3*time.Minute, withoutMetricServer); err != nil {
		t.Fatal(err)
	}
	_, err = e2e.WaitConditions(ctx, n.Client(), key, 3*time.Minute, healthy)
	testutil.Must(t, err)
	debugLogsKept(ctx, t, n, key, pool)
}

// metricContainers are the metric server's two containers in an installation pod.
var metricContainers = []string{render.MetricCollectorContainer, render.MetricServerContainer}

// withMetricServer is an InstallationPod check: Ready, with the metric server's containers running.
func withMetricServer(p *corev1.Pod) error {
	if err := e2e.PodReady(p); err != nil {
		return err
	}
	for _, name := range metricContainers {
		if !slices.ContainsFunc(p.Status.ContainerStatuses, func(s corev1.ContainerStatus) bool { return s.Name == name && s.State.Running != nil && s.Ready }) {
			return fmt.Errorf("pod %s: container %s not running: %+v", p.Name, name, p.Status.ContainerStatuses)
		}
	}
	return nil
}

// withoutMetricServer is an InstallationPod check: Ready, and none of the metric server's containers.
func withoutMetricServer(p *corev1.Pod) error {
	if slices.ContainsFunc(p.Spec.Containers, func(c corev1.Container) bool { return slices.Contains(metricContainers, c.Name) }) {
		return fmt.Errorf("pod %s still runs the metric server", p.Name)
	}
	return e2e.PodReady(p)
}

// frontHoldsNoSandbox: on the real node, the metric server's front (the process the network reaches) runs as
// render.MetricFrontUser, its mount namespace holds no host path (no runsc root), and its user cannot connect to a
// running sandbox's control socket, which the collector's root can.
func frontHoldsNoSandbox(t *testing.T, n *kubenode.Node, front, collector int) {
	t.Helper()
	if front == 0 || collector == 0 {
		return // measureMetricServer failed the test
	}
	user := strconv.Itoa(render.MetricFrontUser)
	if uid := statusField(front, "Uid:"); len(uid) != 4 || slices.ContainsFunc(uid, func(id string) bool { return id != user }) {
		t.Errorf("the metric server's front (pid %d) runs as %v, want %s", front, uid, user)
	}
	for pid, want := range map[int]bool{front: false, collector: true} {
		_, err := os.Stat(fmt.Sprintf("/proc/%d/root/host%s", pid, render.RunscRoot))
		if has := err == nil; has != want {
			t.Errorf("pid %d sees the runsc root: %v, want %v (%v)", pid, has, want, err)
		}
	}
	dir := n.HostPath(render.RunscRoot)
	sockets, err := filepath.Glob(filepath.Join(dir, "runsc-*.sock"))
	if err != nil || len(sockets) == 0 {
		t.Fatalf("no sandbox control socket in %s: %v", dir, err)
	}
	name := filepath.Base(sockets[0])
	if err := testutil.DialAs(0, dir, name); err != nil {
		t.Fatalf("root cannot connect to the control socket %s: %v", sockets[0], err)
	}
	if err := testutil.DialAs(render.MetricFrontUser, dir, name); !errors.Is(err, syscall.EACCES) {
		t.Errorf("the front's user connecting to the control socket %s: %v, want permission denied", sockets[0], err)
	}
}

// statusField is the fields of one line of /proc/<pid>/status (nil once the process is gone).
func statusField(pid int, key string) []string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return nil
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, key); ok {
			return strings.Fields(rest)
		}
	}
	return nil
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

// measureMetricServer logs the deployed metric server's footprint on the real node (VmRSS, RssAnon, and each
// container's memory cgroup: the front and the collector) next to the idle container's gvisor-idle, for
// BENCHMARKS.md, and returns the two processes (0 for one not found).
func measureMetricServer(t *testing.T) (front, collector int) {
	t.Helper()
	front = findProcess(t, "/gvisor-metric-server\x00--collector-socket=")
	collector = findProcess(t, "/gvisor-metric-server\x00--root=")
	idle := findProcess(t, "/gvisor-idle\x00reprove\x00")
	if front == 0 || collector == 0 {
		t.Errorf("the metric server's processes on the node: front %d, collector %d", front, collector)
		return front, collector
	}
	for name, pid := range map[string]int{render.MetricServerContainer: front, render.MetricCollectorContainer: collector} {
		t.Logf("%s (pid %d, 1 gVisor pod, scraped): VmRSS %d KiB, RssAnon %d KiB, VmHWM %d KiB", name, pid,
			statusKiB(pid, "VmRSS:"), statusKiB(pid, "RssAnon:"), statusKiB(pid, "VmHWM:"))
		logCgroup(t, name, memoryCgroup(pid))
	}
	if idle != 0 {
		t.Logf("gvisor-idle reprove (pid %d): VmRSS %d KiB, RssAnon %d KiB", idle, statusKiB(idle, "VmRSS:"), statusKiB(idle, "RssAnon:"))
	}
	return front, collector
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
