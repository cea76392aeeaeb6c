// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
)

func node(name string) corev1.Node { return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}} }

func pod(nodeName string, ready bool, cs ...corev1.ContainerStatus) corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return corev1.Pod{
		Spec:   corev1.PodSpec{NodeName: nodeName},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}, ContainerStatuses: cs},
	}
}

func crashLooping(message string) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name:                 "installer",
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error", Message: message + "\n"}},
	}
}

// reproveReason is gvisor-installer prove's line as the idle container's termination message has it.
const reproveReason = "gVisor sandbox did not start on containerd 2.2.9: runsc at /var/bin/containerruntimes/runsc is not an executable file (-rw-r--r--); gvisor-installer v0.2.0 prove failed"

var (
	waitingBackOff = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 20s restarting failed container=idle"}}
	running        = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
)

// reproveFailed is the idle container after a failed re-proof: exit 1 with the reason, then state.
func reproveFailed(message string, state corev1.ContainerState) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name: "idle", State: state, RestartCount: 2,
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: message + "\n"}},
	}
}

// withInstalled adds the installer's successful run (exit 0, its report) to p's init container statuses.
func withInstalled(p corev1.Pod) corev1.Pod {
	p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "installer", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: 0, Reason: "Completed", Message: "installed gVisor release-20250101.0 on containerd 2.2.9\n"}}}}
	return p
}

func TestNodesResult(t *testing.T) {
	const tooOld = "containerd 1.6.20 is not supported (minimum containerd 1.7.0)"
	imagePull := corev1.ContainerStatus{Name: "installer", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
		Reason: "ImagePullBackOff", Message: "Back-off pulling image \"registry.example/installer:v1\""}}}
	starting := corev1.ContainerStatus{Name: "installer", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}

	for _, tc := range []struct {
		name       string
		nodes      []corev1.Node
		pods       []corev1.Pod
		wantStatus gardencorev1beta1.ConditionStatus
		want       []string
	}{
		{"all ready", []corev1.Node{node("n0"), node("n1")}, []corev1.Pod{pod("n0", true), pod("n1", true)}, gardencorev1beta1.ConditionTrue, nil},
		{"termination message and image pull", []corev1.Node{node("n0"), node("n1"), node("n2")},
			[]corev1.Pod{pod("n0", true), pod("n1", false, crashLooping(tooOld)), pod("n2", false, imagePull)},
			gardencorev1beta1.ConditionFalse, []string{
				`gVisor is not ready on 2 of 3 nodes of worker pool "a": `,
				"n1 (CrashLoopBackOff: " + tooOld + ")",
				`n2 (ImagePullBackOff: Back-off pulling image "registry.example/installer:v1")`,
			}},
		// The idle container's re-proof failed after the install (gvisor-idle reprove): the installer's report is
		// a success, the idle container's last termination message is the proof's reason, whether the kubelet
		// holds the container in its back-off or runs it again for the start proof (Running, not yet Ready).
		{"re-proof failed after the install", []corev1.Node{node("n0"), node("n1")},
			[]corev1.Pod{withInstalled(pod("n0", false, reproveFailed(reproveReason, waitingBackOff))), withInstalled(pod("n1", false, reproveFailed(reproveReason, running)))},
			gardencorev1beta1.ConditionFalse, []string{
				"n0 (CrashLoopBackOff: " + reproveReason + ")",
				"n1 (" + reproveReason + ")",
			}},
		{"no pod on a node yet is progressing", []corev1.Node{node("n0")}, nil, gardencorev1beta1.ConditionProgressing, []string{"n0 (no installation pod)"}},
		{"still starting", []corev1.Node{node("n0")}, []corev1.Pod{pod("n0", false, starting)}, gardencorev1beta1.ConditionProgressing, []string{"n0 (installing)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := nodesResult("a", tc.nodes, tc.pods)
			if res.Status != tc.wantStatus {
				t.Fatalf("status %s, want %s (%s)", res.Status, tc.wantStatus, res.Detail)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Detail, w) {
					t.Errorf("detail %q does not contain %q", res.Detail, w)
				}
			}
		})
	}
}

func TestNotReadyMessageIsBounded(t *testing.T) {
	var nodes []corev1.Node
	var pods []corev1.Pod
	for i := range 12 {
		name := fmt.Sprintf("n%02d", i)
		nodes = append(nodes, node(name))
		pods = append(pods, pod(name, false, crashLooping(strings.Repeat("x", 1000))))
	}
	res := nodesResult("a", nodes, pods)
	if !strings.Contains(res.Detail, "n04 (") || strings.Contains(res.Detail, "n05 (") || !strings.HasSuffix(res.Detail, ", and 7 more") {
		t.Errorf("want 5 nodes named, then the count: %s", res.Detail)
	}
	if len(res.Detail) > 100+maxNamedNodes*(maxReasonLength+10) {
		t.Errorf("detail is %d bytes", len(res.Detail))
	}
}

// TestBoundKeepsTheCause: a reason longer than maxReasonLength keeps its start (the state, what failed) and its end
// (the innermost cause of a wrapped error), not its start alone.
func TestBoundKeepsTheCause(t *testing.T) {
	long := "Error: gVisor sandbox did not start on containerd 2.4.2: starting a pod sandbox with runtime handler \"runsc\" over " +
		"/host/run/containerd/containerd.sock: rpc error: code = Unknown desc = failed to start sandbox: failed to create " +
		strings.Repeat("containerd task: failed to create shim task: ", 10) +
		"OCI runtime create failed: creating container: cannot create sandbox: open /dev/kvm: no such file or directory"
	got := bound(long)
	if len(got) > maxReasonLength {
		t.Errorf("bound gives %d characters, more than %d", len(got), maxReasonLength)
	}
	for _, want := range []string{"Error: gVisor sandbox did not start", "open /dev/kvm: no such file or directory", " ... "} {
		if !strings.Contains(got, want) {
			t.Errorf("bound(%q) = %q lacks %q", long, got, want)
		}
	}
	if short := "CrashLoopBackOff: containerd 1.6.20 is not supported"; bound(short) != short {
		t.Errorf("bound changed a short reason: %q", bound(short))
	}
}

// TestNodesResultNamesGPUNodesGPUPodsCannotUse: a Ready node whose installer found a driver the shipped runsc does
// not support is not ready for the pool's GPU pods; the condition names it with the driver to install. A GPU node
// with a supported driver and a node without GPUs are ready.
func TestNodesResultNamesGPUNodesGPUPodsCannotUse(t *testing.T) {
	installed := func(node, line string) corev1.Pod {
		p := pod(node, true)
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "installer", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 0, Reason: "Completed", Message: line + "\n"}}}}
		return p
	}
	const head = "installed gVisor v1 (runsc sha512:0123456789ab) on containerd 2.4.2"
	pods := []corev1.Pod{
		installed("cpu", head+"; foreign shims: none"),
		installed("gpu-ok", head+"; GPU: supported NVIDIA driver 580.159.04, nvproxy on; foreign shims: none"),
		installed("gpu-bad", head+"; GPU: unknown NVIDIA driver 570.211.01, nvproxy off: install NVIDIA driver 570.195.03, the nearest of its branch; foreign shims: none"),
	}
	r := nodesResult("gpu", []corev1.Node{node("cpu"), node("gpu-ok"), node("gpu-bad")}, pods)
	want := `gVisor is not ready on 1 of 3 nodes of worker pool "gpu": gpu-bad (GPU pods cannot run in gVisor: GPU: unknown NVIDIA driver 570.211.01, nvproxy off: install NVIDIA driver 570.195.03, the nearest of its branch)`
	if r.Status != gardencorev1beta1.ConditionFalse || r.Detail != want {
		t.Errorf("nodesResult = %s %q, want False %q", r.Status, r.Detail, want)
	}
	if r := nodesResult("gpu", []corev1.Node{node("cpu"), node("gpu-ok")}, pods[:2]); r.Status != gardencorev1beta1.ConditionTrue {
		t.Errorf("a CPU node and a GPU node with a supported driver: %s %q, want True", r.Status, r.Detail)
	}
}
