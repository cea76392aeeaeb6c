// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestNodeRunsPods: on each release, the node goes Ready, a runc pod scheduled by the real scheduler runs through
// the real kubelet, `kubectl logs` and `kubectl exec` work through the API server, a pod's in-cluster client
// reaches the API server on the kubernetes Service's ClusterIP, and the node's stop leaves nothing behind.
func TestNodeRunsPods(t *testing.T) {
	for _, c := range kubenode.Releases(t) {
		t.Run(c.Version, func(t *testing.T) {
			n := kubenode.New(t, kubenode.EnvConfig(t, c))
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "runc", Namespace: "default"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "c", Image: nodetest.BusyboxImage, ImagePullPolicy: corev1.PullNever,
					// The ClusterIP must answer TLS on 443: that is the API server (unauthenticated: 401/403 is fine).
					Command: []string{"sh", "-c", "echo hello from runc; if nc -w 2 " + kubenode.KubernetesServiceIP + " 443 </dev/null; then echo apiserver reachable; fi; sleep 3600"},
				}}},
			}
			testutil.Must(t, n.Client().Create(ctx, pod))
			waitRunning(ctx, t, n, pod)
			cs := kubernetes.NewForConfigOrDie(n.RESTConfig())
			testutil.EventuallyWithin(t, time.Minute, "the pod's log", func() error {
				logs, err := cs.CoreV1().Pods("default").GetLogs("runc", &corev1.PodLogOptions{}).DoRaw(ctx)
				if err != nil || !strings.Contains(string(logs), "apiserver reachable") {
					return fmt.Errorf("logs %q: %v", logs, err)
				}
				return nil
			})
			leaked, err := n.LeakedMounts()
			if err != nil || len(leaked) > 0 {
				t.Errorf("the node's mounts are visible on the machine: %v %v", leaked, err)
			}
			kubeconfig, err := n.AdminKubeconfig()
			testutil.Must(t, err)
			out, err := n.NetCommand(ctx, n.Kubectl(), "--kubeconfig", kubeconfig, "exec", "-n", "default", "runc", "--", "cat", "/proc/version").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "Linux version") || strings.Contains(string(out), "gvisor") {
				t.Fatalf("kubectl exec: %v\n%s", err, out)
			}
		})
	}
}

func waitRunning(ctx context.Context, t *testing.T, n *kubenode.Node, pod *corev1.Pod) {
	t.Helper()
	testutil.EventuallyWithin(t, 2*time.Minute, "pod "+pod.Name+" Running", func() error {
		var p corev1.Pod
		if err := n.Client().Get(ctx, client.ObjectKeyFromObject(pod), &p); err != nil {
			return err
		}
		if p.Status.Phase != corev1.PodRunning {
			return fmt.Errorf("pod %s is %s: %+v", p.Name, p.Status.Phase, p.Status.ContainerStatuses)
		}
		return nil
	})
}
