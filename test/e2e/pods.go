// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// GVisorKernelLine is what gVisor's kernel prints first (dmesg in a sandbox).
const GVisorKernelLine = "Starting gVisor..."

// ShootOwnerPod is a shoot owner's pod as the docs tell them to write it: runtimeClassName gvisor (nil: the
// default runtime), printing its kernel's log and version, then waiting.
func ShootOwnerPod(namespace, name string, runtimeClass *string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PodSpec{
			RuntimeClassName: runtimeClass,
			Containers: []corev1.Container{{
				Name: "app", Image: nodetest.BusyboxImage, ImagePullPolicy: corev1.PullNever,
				Command: []string{"sh", "-c", "dmesg; cat /proc/version; exec sleep 86400"},
			}},
			TerminationGracePeriodSeconds: new(int64(1)),
		},
	}
}

// RunPod creates the pod and waits until it runs and its log contains want; it returns the log.
func RunPod(ctx context.Context, n *kubenode.Node, pod *corev1.Pod, want string, timeout time.Duration) (string, error) {
	if err := n.Client().Create(ctx, pod); err != nil {
		return "", fmt.Errorf("creating pod %s: %w", pod.Name, err)
	}
	return WaitPodLog(ctx, n, pod, want, timeout)
}

// WaitPodLog waits until the pod runs and its log contains want; it returns the log.
func WaitPodLog(ctx context.Context, n *kubenode.Node, pod *corev1.Pod, want string, timeout time.Duration) (string, error) {
	cs, err := kubernetes.NewForConfig(n.RESTConfig())
	if err != nil {
		return "", err
	}
	var logs string
	err = Poll(ctx, timeout, 500*time.Millisecond, "pod "+pod.Name+" running with "+want+" in its log", func() error {
		var p corev1.Pod
		if err := n.Client().Get(ctx, client.ObjectKeyFromObject(pod), &p); err != nil {
			return err
		}
		if p.Status.Phase != corev1.PodRunning {
			return fmt.Errorf("phase %s: %+v", p.Status.Phase, p.Status.ContainerStatuses)
		}
		raw, err := cs.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		logs = string(raw)
		if err != nil || !strings.Contains(logs, want) {
			return fmt.Errorf("log %q: %v", logs, err)
		}
		return nil
	})
	return logs, err
}

// Kubectl runs the real kubectl (the node's release's, Node.Kubectl) as admin against the node and returns its combined output.
func Kubectl(ctx context.Context, n *kubenode.Node, args ...string) (string, error) {
	kubeconfig, err := n.AdminKubeconfig()
	if err != nil {
		return "", err
	}
	out, err := n.NetCommand(ctx, append([]string{n.Kubectl(), "--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}
