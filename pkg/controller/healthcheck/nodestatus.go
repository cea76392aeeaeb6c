// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gardener/gardener/extensions/pkg/controller/healthcheck"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
)

// maxNamedNodes bounds the nodes a message names; the rest are counted ("and N more"), so that a pool of
// hundreds of failing nodes still gives a condition message one can read (and that fits the Shoot's status).
const maxNamedNodes = 5

// maxReasonLength bounds what a message quotes per node (bound). 500: room for a failed proof's line whole, which
// carries up to three findings (the installer's diagnosis, runsc's own words, the release the node fell back to,
// whose ids alone are about 50 characters each) besides containerd's error; maxNamedNodes of them stay under 3 kB.
const maxReasonLength = 500

// notReadyNode is a node of the pool without a Ready installation pod.
type notReadyNode struct {
	name   string
	reason string
	// failed is true when the installer or the kubelet reported a failure (a termination message, a back-off,
	// an error); false while the pod is merely starting.
	failed bool
}

// nodesResult is EveryNodeReady for the pool's nodes and their install-mode pods: True when every node has a
// Ready pod; False naming the nodes when one failed; Progressing (bounded by installingThreshold) while the
// not-Ready pods are only starting.
func nodesResult(pool string, nodes []corev1.Node, pods []corev1.Pod) *healthcheck.SingleCheckResult {
	byNode := map[string]*corev1.Pod{}
	for i := range pods {
		byNode[TargetNode(&pods[i])] = &pods[i]
	}
	var notReady []notReadyNode
	for _, n := range nodes {
		p, ok := byNode[n.Name]
		if !ok {
			notReady = append(notReady, notReadyNode{name: n.Name, reason: "no installation pod"})
			continue
		}
		if podReady(p) {
			if gpu := gpuProblem(p); gpu != "" {
				notReady = append(notReady, notReadyNode{name: n.Name, reason: gpu, failed: true})
			}
			continue
		}
		reason, failed := podReason(p)
		notReady = append(notReady, notReadyNode{name: n.Name, reason: reason, failed: failed})
	}
	if len(notReady) == 0 {
		return &healthcheck.SingleCheckResult{Status: gardencorev1beta1.ConditionTrue}
	}
	slices.SortFunc(notReady, func(a, b notReadyNode) int {
		if a.failed != b.failed { // failures first: they are what an operator has to act on
			if a.failed {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	detail := notReadyMessage(pool, len(nodes), notReady)
	if notReady[0].failed {
		return &healthcheck.SingleCheckResult{Status: gardencorev1beta1.ConditionFalse, Detail: detail}
	}
	threshold := installingThreshold
	return &healthcheck.SingleCheckResult{Status: gardencorev1beta1.ConditionProgressing, Detail: detail, ProgressingThreshold: &threshold}
}

// gpuProblem is why GPU pods cannot run in gVisor on p's node, from its installer's report: a GPU node whose
// NVIDIA driver the shipped runsc does not support (or whose driver could not be read), with the driver to
// install; "" for any other node. Such a node runs every other gVisor pod, but a GPU pool exists for its GPU pods,
// and each of them would fail there with nothing but "waiting for sandbox to start: EOF".
func gpuProblem(p *corev1.Pod) string {
	r, ok := InstallerReport(p)
	if !ok || r.GPU == nil || r.GPU.Status == nodecontract.GPUSupported {
		return ""
	}
	return "GPU pods cannot run in gVisor: " + r.GPU.String()
}

// notReadyMessage: `gVisor is not ready on 2 of 3 nodes of worker pool "a": node-1 (CrashLoopBackOff: containerd
// 1.6.20 is not supported ...), node-2 (...)`, at most maxNamedNodes named, then "and N more".
func notReadyMessage(pool string, total int, notReady []notReadyNode) string {
	named := make([]string, len(notReady))
	for i, n := range notReady {
		named[i] = fmt.Sprintf("%s (%s)", n.name, n.reason)
	}
	return fmt.Sprintf("gVisor is not ready on %d of %d nodes of worker pool %q: ", len(notReady), total, pool) + nameNodes(named)
}

// nameNodes joins the first maxNamedNodes of named with ", " and counts the rest (", and N more").
func nameNodes(named []string) string {
	if len(named) <= maxNamedNodes {
		return strings.Join(named, ", ")
	}
	return strings.Join(named[:maxNamedNodes], ", ") + fmt.Sprintf(", and %d more", len(named)-maxNamedNodes)
}

// podReady is the pod's Ready condition: the installer's readiness probe passes once it has succeeded.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podReason says why a pod is not Ready, and whether that is a failure: the installer's termination message, or the
// idle container's when its re-proof failed after the install (gvisor-idle reprove ends it with the proof's line;
// the current or the last run's, one stable line, see cmd/gvisor-installer), prefixed with the kubelet's
// waiting or terminated reason (CrashLoopBackOff, ImagePullBackOff, Error); else that reason with the
// kubelet's message; else why the pod is not scheduled; else that it is still starting.
func podReason(p *corev1.Pod) (string, bool) {
	for _, cs := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		if cs.Ready || succeededInit(p, cs) {
			continue
		}
		var state, message string
		switch {
		case cs.State.Waiting != nil:
			state, message = cs.State.Waiting.Reason, cs.State.Waiting.Message
		case cs.State.Terminated != nil:
			state, message = cs.State.Terminated.Reason, cs.State.Terminated.Message
			if state == "" {
				state = fmt.Sprintf("exited with %d", cs.State.Terminated.ExitCode)
			}
		}
		if t := cs.State.Terminated; t != nil && t.Message != "" {
			message = t.Message
		} else if t := cs.LastTerminationState.Terminated; t != nil && t.Message != "" {
			message = t.Message // the installer's line from before the restart (CrashLoopBackOff)
		}
		message = firstLine(message)
		switch {
		case state != "" && message != "":
			return bound(state + ": " + message), true
		case message != "":
			return bound(message), true
		case state != "" && state != "ContainerCreating" && state != "PodInitializing":
			return bound(state), true
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason != "" {
			return bound(c.Reason + ": " + firstLine(c.Message)), true
		}
	}
	return "installing", false
}

// succeededInit reports an init container that exited 0, such as the installer once it has installed: its
// termination message is its report (InstallerReport), no reason for the pod not to be Ready.
func succeededInit(p *corev1.Pod, cs corev1.ContainerStatus) bool {
	t := cs.State.Terminated
	return t != nil && t.ExitCode == 0 && slices.ContainsFunc(p.Status.InitContainerStatuses, func(i corev1.ContainerStatus) bool { return i.Name == cs.Name })
}

// firstLine is s up to its first newline, with runs of blanks collapsed.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.Join(strings.Fields(s), " ")
}

// TargetNode is the node a DaemonSet pod is for: spec.nodeName once bound, else the node its node affinity names
// (what the daemonset controller sets; an unschedulable pod is never bound).
func TargetNode(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range term.MatchFields {
				if f.Key == "metadata.name" && len(f.Values) == 1 {
					return f.Values[0]
				}
			}
		}
	}
	return ""
}
