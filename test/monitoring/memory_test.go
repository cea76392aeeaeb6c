// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/promrules"
)

const (
	mib = 1 << 20
	// load is what the loaded pod's container holds: dd's buffer, filled from /dev/zero and held while dd blocks
	// writing it into a pipe that nobody reads.
	load = 64 * mib
	// loadTolerance bounds how far the metric's increase under the load may differ from the host cgroup's.
	loadTolerance = 8 * mib
	// overheadBudget bounds what the host cgroup holds beyond the metric: the sentry's and gofer's own memory and
	// the page cache of the pod's files, which the sentry does not account to the application.
	overheadBudget = 48 * mib
)

// TestSandboxMemoryMetric runs two real gVisor pods on a node whose runsc.toml carries the metric-server flag, one
// idle and one holding 64 MiB, and scrapes the real metric server. The per-sandbox memory metric is judged against
// what the sandbox really uses on the host, its pod cgroup: the loaded pod's metric is at least the load, its
// increase over the idle pod's equals the cgroup's increase within 8 MiB, and the cgroup holds at most 48 MiB
// more than the metric. The loaded container's CPU time, the pod and namespace labels and the node's sandbox count
// are checked too.
func TestSandboxMemoryMetric(t *testing.T) {
	s := newSuite(t, "2.4")
	n := s.installedNode(t, "2.4", runscConfigWithMetricServer)
	ms := s.startMetricServer(t, n, metricServerFlag)
	idle := startPod(t, n, "exec sleep 3600")
	loaded := startPod(t, n, "dd if=/dev/zero bs=64M count=1 2>/dev/null | sleep 3600")

	samples := ms.waitFor(t, func(samples []sample) bool {
		m := find(samples, "runsc_sandbox_memory_usage_bytes", map[string]string{"sandbox": loaded.ID})
		return len(m) == 1 && m[0].value >= load
	})
	idleMetric := one(t, samples, "runsc_sandbox_memory_usage_bytes", map[string]string{"sandbox": idle.ID, "pod_name": idle.Config.Metadata.Name, "namespace_name": "gvisor-test"}).value
	loadedMetric := one(t, samples, "runsc_sandbox_memory_usage_bytes", map[string]string{"sandbox": loaded.ID, "pod_name": loaded.Config.Metadata.Name, "namespace_name": "gvisor-test"}).value
	idleCgroup, loadedCgroup := float64(podCgroupMemory(t, idle)), float64(podCgroupMemory(t, loaded))
	t.Logf("memory: idle pod metric %.1f MiB, cgroup %.1f MiB; loaded pod metric %.1f MiB, cgroup %.1f MiB",
		idleMetric/mib, idleCgroup/mib, loadedMetric/mib, loadedCgroup/mib)
	if d, c := loadedMetric-idleMetric, loadedCgroup-idleCgroup; abs(d-c) > loadTolerance {
		t.Errorf("under a %d MiB load the metric grew by %.1f MiB and the pod's cgroup by %.1f MiB: more than %d MiB apart", load/mib, d/mib, c/mib, loadTolerance/mib)
	}
	for name, m := range map[string][2]float64{"idle": {idleMetric, idleCgroup}, "loaded": {loadedMetric, loadedCgroup}} {
		if over := m[1] - m[0]; over < 0 || over > overheadBudget {
			t.Errorf("%s pod: the cgroup holds %.1f MiB beyond the metric, want 0..%d MiB", name, over/mib, overheadBudget/mib)
		}
	}
	if got := one(t, samples, "runsc_num_sandboxes_running", nil).value; got != 2 {
		t.Errorf("runsc_num_sandboxes_running = %g, want 2 (the proof sandbox is gone, the two pods run)", got)
	}
	cpu := one(t, samples, "runsc_container_cpu_usage_seconds_total", map[string]string{"sandbox": loaded.ID, "container": "c1"})
	if cpu.value <= 0 {
		t.Errorf("the loaded container's CPU time is %g, want > 0 (dd filled 64 MiB)", cpu.value)
	}
	checkSandboxMetadata(t, samples, loaded, runscVersion(t, filepath.Join(s.release, "runsc")))
	broken := hangSandbox(t, n, ms, loaded)
	judgeRules(t, samples, broken, loaded)
	judgeShootMonitoring(t, samples, broken, loaded)
}

// checkSandboxMetadata: the sandbox's metadata series names the release that created it (the real runsc's own
// --version) and a platform, with the pod's labels.
func checkSandboxMetadata(t *testing.T, samples []sample, pod *nodetest.Pod, version string) {
	t.Helper()
	m := one(t, samples, "runsc_sandbox_metadata", map[string]string{"sandbox": pod.ID, "pod_name": pod.Config.Metadata.Name, "namespace_name": "gvisor-test"})
	if m.value != 1 || m.labels["version"] != version || m.labels["platform"] == "" || m.labels["cpuarch"] != runtime.GOARCH {
		t.Errorf("%s, want value 1, version %q (runsc --version), a platform and cpuarch %s", m, version, runtime.GOARCH)
	}
}

// runscVersion is what runsc --version says its version is ("runsc version X").
func runscVersion(t *testing.T, runsc string) string {
	t.Helper()
	out, err := exec.Command(runsc, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", runsc, err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	v, ok := strings.CutPrefix(first, "runsc version ")
	if !ok {
		t.Fatalf("%s --version says %q", runsc, out)
	}
	return v
}

// hangSandbox stops the pod's sentry (SIGSTOP: a hung sandbox, the failure the metric server must report) and
// returns the first scrape that counts it broken; the sentry is continued when the test ends.
func hangSandbox(t *testing.T, n *node, ms *metricServer, pod *nodetest.Pod) []sample {
	t.Helper()
	pid, err := n.RunscSandboxPID(pod.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("stopping the sentry of pod %s: %v", pod.ID, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	return ms.waitFor(t, func(samples []sample) bool {
		b := find(samples, "runsc_num_sandboxes_broken_metrics", nil)
		return len(b) == 1 && b[0].value == 1 && len(find(samples, "runsc_sandbox_memory_usage_bytes", map[string]string{"sandbox": pod.ID})) == 0
	})
}

// judgeRules runs the rule file's recording rules and alerts in promtool on the real series: the healthy scrape's
// memory of both pods and node counts for 15 minutes, the per-pod memory rule giving the loaded pod's real metric
// (judged against its cgroup above); and the node's broken-sandbox count, 0 as scraped before the hang and 1 as
// scraped during it, which fires GVisorSandboxMetricsBroken after its 5 minutes and not before.
func judgeRules(t *testing.T, healthy, broken []sample, loaded *nodetest.Pod) {
	var r ruleTest
	for _, s := range find(healthy, "runsc_sandbox_memory_usage_bytes", nil) {
		r.addSeries(s, fmt.Sprintf("%sx15", strconv.FormatFloat(s.value, 'e', -1, 64)))
	}
	r.addSeries(one(t, healthy, "runsc_num_sandboxes_running", nil), "2x15")
	before := one(t, healthy, "runsc_num_sandboxes_broken_metrics", nil)
	during := one(t, broken, "runsc_num_sandboxes_broken_metrics", nil)
	r.addSeries(before, fmt.Sprintf("%gx4 %gx10", before.value, during.value))
	mem := one(t, healthy, "runsc_sandbox_memory_usage_bytes", map[string]string{"sandbox": loaded.ID}).value
	pod := loaded.Config.Metadata.Name
	r.expectSample(fmt.Sprintf("namespace_pod:gvisor_sandbox_memory_usage_bytes:sum{pod=%q}", pod), "10m",
		promrules.Series("namespace_pod:gvisor_sandbox_memory_usage_bytes:sum", map[string]string{"namespace": "gvisor-test", "pod": pod, "node": testNode}), mem)
	r.expectSample("node:gvisor_sandboxes_running:sum", "10m", promrules.Series("node:gvisor_sandboxes_running:sum", map[string]string{"node": testNode}), 2)
	r.expectAlert("GVisorSandboxMetricsBroken", "8m", nil, nil)
	r.expectAlert("GVisorSandboxMetricsBroken", "10m", map[string]string{"node": testNode, "severity": "warning", "type": "shoot", "visibility": "owner"},
		map[string]string{
			"summary": "gVisor sandboxes on node " + testNode + " do not export their metrics",
			"description": "1 gVisor sandbox(es) on node " + testNode + " did not answer the gVisor metric server within its timeout or failed its " +
				"verification for 5 minutes. Their pods may hang; see the metric server's log in the gVisor installation pod on that node.",
		})
	r.run(t)
}

// metricServerFlag is the runsc metric-server flag of the test nodes. The sandboxes never connect to it (the
// server connects to them); it names the server they belong to.
const metricServerFlag = "127.0.0.1:9115"

const runscConfigWithMetricServer = "[runsc_config]\n  metric-server = \"" + metricServerFlag + "\"\n"

// startPod starts a runsc pod whose busybox container runs script, and returns the pod.
func startPod(t testing.TB, n *node, script string) *nodetest.Pod {
	t.Helper()
	ctx := context.Background()
	pod, err := n.RunPod(ctx, nodetest.PodSpec{Handler: "runsc"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.StartContainer(ctx, pod, nodetest.BusyboxImage, "sh", "-c", script); err != nil {
		t.Fatal(err)
	}
	return pod
}

// waitFor scrapes (bounded, 30 s) until ok is true for a scrape, and returns that scrape.
func (ms *metricServer) waitFor(t testing.TB, ok func([]sample) bool) []sample {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		samples, body := ms.scrape(t)
		if ok(samples) {
			return samples
		}
		if time.Now().After(deadline) {
			t.Fatalf("the metric server's scrape did not show what the test waits for within 30 s; last scrape:\n%s", body)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// podCgroupMemory is the host's view of what the pod's sandbox uses: memory.usage_in_bytes of the pod's cgroup
// (cgroup v1) or memory.current (v2), which holds the sandbox, its gofer and the pause container.
func podCgroupMemory(t testing.TB, pod *nodetest.Pod) uint64 {
	t.Helper()
	dir := pod.Config.GetLinux().GetCgroupParent()
	for _, f := range []string{"/sys/fs/cgroup/memory" + dir + "/memory.usage_in_bytes", filepath.Join("/sys/fs/cgroup", dir, "memory.current")} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return v
	}
	t.Fatalf("no memory cgroup file for the pod's cgroup %s", dir)
	return 0
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
