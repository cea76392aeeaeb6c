// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// reproveInterval is the test's re-proof interval (the extension's default is 5m): short, so that a break shows
// within the test's patience.
const reproveInterval = 15 * time.Second

// TestReproveOnRealNode breaks gVisor on a node after its installation pod turned Ready, the way a node breaks
// behind the installer's back (the runsc that containerd's handler runs made unrunnable: the node's own file, not
// the installer's pod), on the newest containerd release: within the re-proof interval the installation pod turns
// not Ready and EveryNodeReady False, naming the node and the proof's reason; making runsc runnable again heals the
// node without anyone touching the pod. A real shoot Prometheus scraping the shoot's real kube-state-metrics (both
// as Gardener runs them) sees it: GVisorSandboxProofFailed fires for the node, GVisorNotReadyOnNodes is pending for
// the pool until the repair, and the controller exports EveryNodeReady False for the seed Prometheus (the seed alert's
// input). On the way it measures the idle container's memory between proofs and during one.
func TestReproveOnRealNode(t *testing.T) {
	releases := kubenode.Releases(t)
	c := releases[len(releases)-1]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	n, shoot := onRealNode(ctx, t, c, realcomponents.Helm(t), thisChart, ourImages(t), map[string]any{"reproveInterval": reproveInterval.String()})
	key := client.ObjectKeyFromObject(shoot.ContainerRuntime)
	pool := shoot.ContainerRuntime.Spec.WorkerPool.Name
	_, err := e2e.WaitConditions(ctx, n.Client(), key, 3*time.Minute, healthy)
	testutil.Must(t, err)
	measureReprove(t)
	alerts := installationAlerts{p: startShootPrometheus(ctx, t, n, key.Namespace), pool: pool, node: nodeName}
	alerts.healthy(ctx, t)

	runsc := nodeRealPath(t, n, filepath.Join(kubenode.BinDir, "runsc"))
	st, err := os.Stat(n.HostPath(runsc))
	testutil.Must(t, err)
	t.Logf("breaking gVisor on the node: chmod a-x %s (the runsc the handler runs)", runsc)
	testutil.Must(t, os.Chmod(n.HostPath(runsc), 0o644))
	broken := time.Now()
	pod, err := e2e.InstallationPod(ctx, n.Client(), pool, nodeName, 2*reproveInterval+time.Minute, podNotReady)
	testutil.Must(t, err)
	t.Logf("installation pod %s not Ready %s after the break; idle: %s", pod.Name, time.Since(broken).Round(time.Second), idleState(pod))
	cond := waitCondition(ctx, t, n, key, gardencorev1beta1.ShootEveryNodeReady, gardencorev1beta1.ConditionFalse)
	t.Logf("EveryNodeReady %s after the break: %s", time.Since(broken).Round(time.Second), cond.Message)
	if !strings.Contains(cond.Message, nodeName) || !strings.Contains(cond.Message, "gVisor sandbox did not start") {
		t.Errorf("EveryNodeReady's message should name the node %s and that the sandbox did not start: %s", nodeName, cond.Message)
	}
	if !strings.Contains(cond.Message, "runsc") {
		t.Errorf("EveryNodeReady's message should say what of runsc is wrong: %s", cond.Message)
	}
	alerts.broken(ctx, t)
	awaitControllerCondition(ctx, t, n, key, string(gardencorev1beta1.ShootEveryNodeReady), string(gardencorev1beta1.ConditionFalse))

	testutil.Must(t, os.Chmod(n.HostPath(runsc), st.Mode().Perm()))
	repaired := time.Now()
	_, err = e2e.WaitConditions(ctx, n.Client(), key, 6*time.Minute, healthy) // the kubelet's back-off decides
	testutil.Must(t, err)
	pod, err = e2e.InstallationPod(ctx, n.Client(), pool, nodeName, time.Minute, e2e.PodReady)
	testutil.Must(t, err)
	t.Logf("healed %s after the repair: installation pod %s Ready, idle: %s", time.Since(repaired).Round(time.Second), pod.Name, idleState(pod))
	alerts.repaired(ctx, t)
	awaitControllerCondition(ctx, t, n, key, string(gardencorev1beta1.ShootEveryNodeReady), string(gardencorev1beta1.ConditionTrue))
}

// podNotReady is an InstallationPod check: the pod is not Ready.
func podNotReady(p *corev1.Pod) error {
	if e2e.PodReady(p) == nil {
		return fmt.Errorf("pod %s still Ready", p.Name)
	}
	return nil
}

// idleState is the idle container's state and restarts, with the last termination message.
func idleState(p *corev1.Pod) string {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name != "idle" {
			continue
		}
		s := fmt.Sprintf("ready %v, restarts %d", cs.Ready, cs.RestartCount)
		if w := cs.State.Waiting; w != nil {
			s += ", waiting " + w.Reason
		}
		if t := cs.LastTerminationState.Terminated; t != nil {
			s += fmt.Sprintf(", last exit %d %q", t.ExitCode, t.Message)
		}
		return s
	}
	return "no idle container status"
}

// nodeRealPath resolves the symlinks of the node path p in the node's terms (an absolute link target is a node
// path, not one of this machine), so that the test breaks the file containerd's handler runs, wherever the bin
// dir's layout puts it.
func nodeRealPath(t *testing.T, n *kubenode.Node, p string) string {
	t.Helper()
	for range 16 {
		st, err := os.Lstat(n.HostPath(p))
		testutil.Must(t, err)
		if st.Mode()&os.ModeSymlink == 0 {
			return p
		}
		target, err := os.Readlink(n.HostPath(p))
		testutil.Must(t, err)
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = filepath.Clean(target)
	}
	t.Fatalf("%s: too many symlinks", p)
	return ""
}

// measureReprove logs the idle container's footprint on the real node: gvisor-idle's RSS between proofs, and
// during one the proof's peak RSS (gvisor-installer prove, sampled) and the container's memory cgroup peak.
func measureReprove(t *testing.T) {
	t.Helper()
	idle := findProcess(t, "/gvisor-idle\x00reprove\x00")
	if idle == 0 {
		t.Error("no gvisor-idle reprove process on the node")
		return
	}
	t.Logf("gvisor-idle reprove (pid %d) between proofs: VmRSS %d KiB", idle, statusKiB(idle, "VmRSS:"))
	cgroup := memoryCgroup(idle)
	var prove int
	deadline := time.Now().Add(2*reproveInterval + 30*time.Second)
	for prove == 0 && time.Now().Before(deadline) {
		prove = findProcess(t, "/gvisor-installer\x00prove\x00")
		time.Sleep(20 * time.Millisecond)
	}
	if prove == 0 {
		t.Errorf("no proof ran within %s", 2*reproveInterval+30*time.Second)
		return
	}
	var hwm, anon int
	for {
		h, a := statusKiB(prove, "VmHWM:"), statusKiB(prove, "RssAnon:")
		if h < 0 {
			break // ended
		}
		hwm, anon = max(hwm, h), max(anon, a)
		time.Sleep(10 * time.Millisecond)
	}
	// VmHWM counts the binary's mapped pages too, which the page cache may have charged to another cgroup (the
	// init container ran the same file); RssAnon is this process's own.
	t.Logf("a proof (gvisor-installer prove, pid %d): peak RSS (VmHWM, last sample) %d KiB, highest RssAnon sampled %d KiB", prove, hwm, anon)
	if cgroup != "" {
		for _, f := range []string{"memory.max_usage_in_bytes", "memory.peak", "memory.usage_in_bytes", "memory.current"} {
			if data, err := os.ReadFile(filepath.Join(cgroup, f)); err == nil {
				t.Logf("idle container's memory cgroup %s: %s = %s", cgroup, f, strings.TrimSpace(string(data)))
			}
		}
		if data, err := os.ReadFile(filepath.Join(cgroup, "memory.stat")); err == nil {
			for _, l := range strings.Split(string(data), "\n") {
				if f := strings.Fields(l); len(f) == 2 && (f[0] == "rss" || f[0] == "cache" || f[0] == "anon" || f[0] == "file" || f[0] == "total_rss" || f[0] == "total_cache") {
					t.Logf("memory.stat %s %s", f[0], f[1])
				}
			}
		}
	}
}

// findProcess returns the pid of a process whose command line starts with prefix (NUL-separated), 0 if none.
func findProcess(t *testing.T, prefix string) int {
	entries, err := os.ReadDir("/proc")
	testutil.Must(t, err)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.HasPrefix(string(data), prefix) {
			return pid
		}
	}
	return 0
}

// statusKiB reads a KiB field of /proc/<pid>/status; -1 once the process is gone.
func statusKiB(pid int, key string) int {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, key); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				n, _ := strconv.Atoi(f[0])
				return n
			}
		}
	}
	return -1
}

// memoryCgroup is the directory of pid's memory cgroup on this machine (cgroup v1's memory hierarchy, or v2's
// unified one), "" when it cannot be told.
func memoryCgroup(pid int) string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case strings.Contains(","+parts[1]+",", ",memory,"):
			return filepath.Join("/sys/fs/cgroup/memory", parts[2])
		case parts[0] == "0" && parts[1] == "":
			return filepath.Join("/sys/fs/cgroup", parts[2])
		}
	}
	return ""
}
