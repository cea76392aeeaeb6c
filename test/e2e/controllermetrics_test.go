// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controllermetrics"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
)

// awaitControllerCondition waits until the extension controller, as it runs on the node, exports the pool's
// condition with status on its metrics port (what the seed Prometheus scrapes and the seed alerts read:
// GVisorEveryNodeReadyFalse on EveryNodeReady False), read through the API server's pod proxy.
func awaitControllerCondition(ctx context.Context, t *testing.T, n *kubenode.Node, key client.ObjectKey, condition, status string) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(n.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"shoot_namespace": key.Namespace, "containerruntime": key.Name, "type": condition, "status": status}
	err = e2e.Poll(ctx, time.Minute, 2*time.Second, fmt.Sprintf("the controller's %s{%v} at 1", controllermetrics.ConditionMetric, want), func() error {
		pod, port, err := controllerMetricsPod(ctx, n)
		if err != nil {
			return err
		}
		raw, err := cs.CoreV1().Pods(e2e.ExtensionNamespace).ProxyGet("http", pod, strconv.Itoa(int(port)), "/metrics", nil).DoRaw(ctx)
		if err != nil {
			return fmt.Errorf("scraping the controller %s: %w", pod, err)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
		if err != nil {
			return fmt.Errorf("parsing the controller's metrics: %w", err)
		}
		for _, m := range families[controllermetrics.ConditionMetric].GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			match := true
			for k, v := range want {
				match = match && labels[k] == v
			}
			if match && m.GetGauge().GetValue() == 1 {
				return nil
			}
		}
		return fmt.Errorf("no such series at 1 among %d of %s", len(families[controllermetrics.ConditionMetric].GetMetric()), controllermetrics.ConditionMetric)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// controllerMetricsPod is the running controller pod and its container port named metrics.
func controllerMetricsPod(ctx context.Context, n *kubenode.Node) (string, int32, error) {
	pods := &corev1.PodList{}
	if err := n.Client().List(ctx, pods, client.InNamespace(e2e.ExtensionNamespace)); err != nil {
		return "", 0, err
	}
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			continue
		}
		for _, c := range p.Spec.Containers {
			for _, port := range c.Ports {
				if port.Name == "metrics" {
					return p.Name, port.ContainerPort, nil
				}
			}
		}
	}
	return "", 0, fmt.Errorf("no running pod with a metrics port in %s", e2e.ExtensionNamespace)
}
