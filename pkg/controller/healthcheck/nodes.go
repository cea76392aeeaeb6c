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
	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

// installingThreshold is how long nodes whose installation pod is still starting (no failure reported) count as
// Progressing before EveryNodeReady turns False: a pull of the installation image plus a containerd restart and
// the sandbox proof take well under it on a healthy node.
const installingThreshold = 5 * time.Minute

// nodesCheck computes EveryNodeReady: how many of the pool's nodes have a Ready installation pod.
type nodesCheck struct {
	seed client.Client
}

var _ healthcheck.HealthCheck = nodesCheck{}

func (c nodesCheck) Check(ctx context.Context, key types.NamespacedName) (*healthcheck.SingleCheckResult, error) {
	cr, err := readRuntime(ctx, c.seed, key)
	if err != nil {
		return nil, err
	}
	pool := cr.Spec.WorkerPool.Name
	shoot, err := newShootClient(ctx, c.seed, key.Namespace)
	if err != nil {
		return nil, err
	}
	nodes := &corev1.NodeList{}
	if err := shoot.List(ctx, nodes, client.MatchingLabels{v1beta1constants.LabelWorkerPool: pool}); err != nil {
		return nil, fmt.Errorf("listing the nodes of worker pool %q in the shoot: %w", pool, err)
	}
	if len(nodes.Items) == 0 {
		return &healthcheck.SingleCheckResult{Status: gardencorev1beta1.ConditionTrue}, nil // nothing to install on yet
	}
	pods, err := installationPods(ctx, shoot, pool)
	if err != nil {
		return nil, err
	}
	return nodesResult(pool, nodes.Items, pods), nil
}

func (nodesCheck) SetLoggerSuffix(string, string) {}

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
