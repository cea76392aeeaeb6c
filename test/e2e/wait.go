// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1beta1helper "github.com/gardener/gardener/pkg/api/core/v1beta1/helper"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// Poll calls check every interval until it returns nil, ctx ends or timeout passes; the error names what and
// check's last error.
func Poll(ctx context.Context, timeout, interval time.Duration, what string, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not within %s: %w", what, timeout, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (last: %v)", what, ctx.Err(), err)
		case <-time.After(interval):
		}
	}
}

// WaitConditions waits until the ContainerRuntime's last operation succeeded and each condition type has its
// status, and returns the ContainerRuntime.
func WaitConditions(ctx context.Context, c client.Client, key client.ObjectKey, timeout time.Duration, want map[gardencorev1beta1.ConditionType]gardencorev1beta1.ConditionStatus) (*extensionsv1alpha1.ContainerRuntime, error) {
	cr := &extensionsv1alpha1.ContainerRuntime{}
	err := Poll(ctx, timeout, time.Second, "ContainerRuntime "+key.String()+" conditions", func() error {
		if err := c.Get(ctx, key, cr); err != nil {
			return err
		}
		if op := cr.Status.LastOperation; op == nil || op.State != gardencorev1beta1.LastOperationStateSucceeded {
			return fmt.Errorf("last operation %+v, last error %+v", op, cr.Status.LastError)
		}
		for t, s := range want {
			got := v1beta1helper.GetCondition(cr.Status.Conditions, t)
			if got == nil || got.Status != s {
				return fmt.Errorf("condition %s is %s, want %s", t, conditionString(got), s)
			}
		}
		return nil
	})
	return cr, err
}

func conditionString(c *gardencorev1beta1.Condition) string {
	if c == nil {
		return "missing"
	}
	return fmt.Sprintf("%s (%s: %s)", c.Status, c.Reason, c.Message)
}

// InstallationPod waits until the installation DaemonSet of the pool has a pod on node for which ok returns nil,
// and returns it.
func InstallationPod(ctx context.Context, c client.Client, pool, node string, timeout time.Duration, ok func(*corev1.Pod) error) (*corev1.Pod, error) {
	var found *corev1.Pod
	err := Poll(ctx, timeout, time.Second, "the installation pod of pool "+pool+" on "+node, func() error {
		pods := &corev1.PodList{}
		if err := c.List(ctx, pods, client.InNamespace("kube-system")); err != nil {
			return err
		}
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.Spec.NodeName == node && strings.Contains(p.Name, pool) && p.DeletionTimestamp == nil {
				found = p
				return ok(p)
			}
		}
		return fmt.Errorf("no pod of pool %s on %s in kube-system", pool, node)
	})
	return found, err
}

// PodReady is an InstallationPod check: the pod is Ready.
func PodReady(p *corev1.Pod) error {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return nil
		}
	}
	return fmt.Errorf("pod %s not Ready: phase %s, init containers %s", p.Name, p.Status.Phase, PodStates(p))
}

// PodStates summarises the init containers' states with their termination messages (the installer's report), then
// the containers that are not ready. A container that was restarted also says how often and how its last run ended:
// an installer that failed its first proof and waited out its back-off is Ready late, and only its previous run says
// why.
func PodStates(p *corev1.Pod) string {
	var b strings.Builder
	for _, s := range p.Status.InitContainerStatuses {
		containerState(&b, s)
	}
	b.WriteString("containers not ready: ")
	for _, s := range p.Status.ContainerStatuses {
		if !s.Ready {
			containerState(&b, s)
		}
	}
	return b.String()
}

// containerState appends one container's state to b.
func containerState(b *strings.Builder, s corev1.ContainerStatus) {
	switch {
	case s.State.Terminated != nil:
		fmt.Fprintf(b, "%s terminated %d %q", s.Name, s.State.Terminated.ExitCode, s.State.Terminated.Message)
	case s.State.Waiting != nil:
		fmt.Fprintf(b, "%s waiting %s %q", s.Name, s.State.Waiting.Reason, s.State.Waiting.Message)
	default:
		fmt.Fprintf(b, "%s running", s.Name)
	}
	if last := s.LastTerminationState.Terminated; s.RestartCount > 0 && last != nil {
		fmt.Fprintf(b, " (%d restarts; the last run ended %s with %d: %q)", s.RestartCount, last.FinishedAt.UTC().Format(time.TimeOnly), last.ExitCode, last.Message)
	}
	b.WriteString("; ")
}

// PodEvents lists the events of pod p, oldest first, one line each with its count and times: what the kubelet did
// with the pod (back-offs, restarts, failed probes) where its status keeps only the last state.
func PodEvents(ctx context.Context, c client.Client, p *corev1.Pod) string {
	events := &corev1.EventList{}
	if err := c.List(ctx, events, client.InNamespace(p.Namespace)); err != nil {
		return "listing the events: " + err.Error()
	}
	slices.SortStableFunc(events.Items, func(a, b corev1.Event) int { return a.FirstTimestamp.Compare(b.FirstTimestamp.Time) })
	var b strings.Builder
	for _, e := range events.Items {
		if e.InvolvedObject.Kind != "Pod" || e.InvolvedObject.Name != p.Name {
			continue
		}
		fmt.Fprintf(&b, "%s-%s %dx %s %s: %s\n", e.FirstTimestamp.UTC().Format(time.TimeOnly), e.LastTimestamp.UTC().Format(time.TimeOnly),
			e.Count, e.Type, e.Reason, strings.TrimSpace(e.Message))
	}
	return b.String()
}
