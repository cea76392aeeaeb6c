// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package healthcheck

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gardener/gardener/extensions/pkg/controller/healthcheck"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// installingThreshold is how long nodes whose installation pod is still starting (no failure reported) count as
// Progressing before EveryNodeReady turns False: a pull of the installation image plus a containerd restart and
// the sandbox proof take well under it on a healthy node.
const installingThreshold = 5 * time.Minute

// poolCheck is a health check computed by result from what readPool reads of the ContainerRuntime's pool: the
// EveryNodeReady (nodesCheck) and BinDirClean (binDirCheck, bindir.go) checks.
type poolCheck struct {
	reads  *shootReads
	result func(pool string, nodes []corev1.Node, pods []corev1.Pod) *healthcheck.SingleCheckResult
}

var _ healthcheck.HealthCheck = poolCheck{}

func (c poolCheck) Check(ctx context.Context, key types.NamespacedName) (*healthcheck.SingleCheckResult, error) {
	pool, nodes, pods, err := c.reads.readPool(ctx, key)
	if err != nil {
		return nil, err
	}
	return c.result(pool, nodes, pods), nil
}

func (poolCheck) SetLoggerSuffix(string, string) {}

// nodesCheck computes EveryNodeReady: how many of the pool's nodes have a Ready installation pod.
func nodesCheck(reads *shootReads) poolCheck {
	return poolCheck{reads: reads, result: func(pool string, nodes []corev1.Node, pods []corev1.Pod) *healthcheck.SingleCheckResult {
		if len(nodes) == 0 {
			return &healthcheck.SingleCheckResult{Status: gardencorev1beta1.ConditionTrue} // nothing to install on yet
		}
		return nodesResult(pool, nodes, pods)
	}}
}

// installationPods returns the install-mode pods of the pool's DaemonSet (not the uninstall ones, not those being
// deleted), selected with the DaemonSet's own selector. No DaemonSet: no pods (each node then says so).
func installationPods(ctx context.Context, shoot client.Reader, pool string) ([]corev1.Pod, error) {
	ds := &appsv1.DaemonSet{}
	key := client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: daemonSetName(pool)}
	if err := shoot.Get(ctx, key, ds); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading DaemonSet %s in the shoot: %w", key, err)
	}
	selector, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("DaemonSet %s: selector: %w", key, err)
	}
	list := &corev1.PodList{}
	if err := shoot.List(ctx, list, client.InNamespace(key.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return nil, fmt.Errorf("listing the pods of DaemonSet %s in the shoot: %w", key, err)
	}
	var pods []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Labels[render.ModeLabel] != string(render.ModeUninstall) {
			pods = append(pods, p)
		}
	}
	return pods, nil
}

// daemonSetName is the installation DaemonSet of pool in the shoot's kube-system (charts/internal/gvisor-installation).
func daemonSetName(pool string) string { return "gvisor-installation-" + pool }
