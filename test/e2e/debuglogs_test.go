// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/debuglogs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// debugLogsKept turns debug on for the pool, as a shoot owner does in its providerConfig: the installation pods roll
// with the container debug-logs (the chart's, the shipped installer's keep-debug-logs) beside the idle one, and a
// sandbox's log grown past the node's budget under /var/log/runsc is truncated by it, through the pod's host path
// and with the container's rights (root without capabilities).
func debugLogsKept(ctx context.Context, t *testing.T, n *kubenode.Node, key client.ObjectKey, pool string) {
	t.Helper()
	setProviderConfig(ctx, t, n, key, []byte(`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration",`+
		`"sandboxMetrics":{"enabled":false},"configFlags":{"debug":"true"}}`))
	pod, err := e2e.InstallationPod(ctx, n.Client(), pool, nodeName, 3*time.Minute, withDebugLogs)
	testutil.Must(t, err)

	dir := n.HostPath("/var/log/runsc/e2e-sandbox")
	testutil.Must(t, os.MkdirAll(dir, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	log := filepath.Join(dir, "gvisor-boot.log")
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o664)
	testutil.Must(t, err)
	defer f.Close()
	// Allocated on disk (what the keeper counts) without writing a GiB.
	testutil.Must(t, unix.Fallocate(int(f.Fd()), 0, 0, debuglogs.DefaultBudget+64<<20))
	// Bound: three of the keeper's passes and slack for a loaded machine.
	err = e2e.Poll(ctx, 3*debuglogs.DefaultInterval+30*time.Second, time.Second, "the debug-logs container truncating a log past the node's budget", func() error {
		head := make([]byte, len(debuglogs.TruncatedNote))
		r, err := os.Open(log)
		if err != nil {
			return err
		}
		defer r.Close()
		if _, err := r.Read(head); err != nil || string(head) != debuglogs.TruncatedNote {
			return fmt.Errorf("the log starts with %q", head)
		}
		return nil
	})
	if err != nil {
		cs, cerr := kubernetes.NewForConfig(n.RESTConfig())
		testutil.Must(t, cerr)
		t.Fatalf("%v\n--- debug-logs log ---\n%s", err, containerLog(ctx, cs, pod, render.DebugLogsContainer))
	}
	t.Logf("debug on: %s runs %s, which truncated a log past the node's budget", pod.Name, render.DebugLogsContainer)
}

// withDebugLogs is an InstallationPod check: Ready, with the debug-logs container running.
func withDebugLogs(p *corev1.Pod) error {
	if err := e2e.PodReady(p); err != nil {
		return err
	}
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == render.DebugLogsContainer && s.State.Running != nil {
			return nil
		}
	}
	var names []string
	for _, s := range p.Status.ContainerStatuses {
		names = append(names, s.Name)
	}
	return fmt.Errorf("pod %s: container %s not running (containers %s)", p.Name, render.DebugLogsContainer, strings.Join(names, ", "))
}
