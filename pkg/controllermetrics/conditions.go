// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package controllermetrics

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
)

// ConditionMetric is the name of the condition gauge.
const ConditionMetric = "gvisor_containerruntime_condition"

// statuses are the condition statuses a series exists for: each condition gives one series per status, 1 for
// the one it has and 0 for the others (kube-state-metrics' convention), so an alert can say status="False" and a
// dashboard can count.
var statuses = []gardencorev1beta1.ConditionStatus{
	gardencorev1beta1.ConditionTrue, gardencorev1beta1.ConditionFalse,
	gardencorev1beta1.ConditionProgressing, gardencorev1beta1.ConditionUnknown,
}

// conditionDesc labels: shoot_namespace (not namespace: the seed Prometheus sets namespace to the controller pod's),
// containerruntime, pool, type, status.
var conditionDesc = prometheus.NewDesc(ConditionMetric,
	"Health conditions of the gvisor ContainerRuntimes (SystemComponentsHealthy, EveryNodeReady, BinDirClean, ...) per shoot "+
		"namespace and worker pool: 1 for the condition's current status, 0 for the others.",
	[]string{"shoot_namespace", "containerruntime", "pool", "type", "status"}, nil)

// ConditionCollector reports ConditionMetric from the ContainerRuntimes of type gvisor that reader lists (the
// manager's cached client) at every scrape.
type ConditionCollector struct {
	reader  client.Reader
	runtime string
	timeout time.Duration
}

// NewConditionCollector returns a collector of the conditions of the ContainerRuntimes of type runtimeType.
func NewConditionCollector(reader client.Reader, runtimeType string) *ConditionCollector {
	return &ConditionCollector{reader: reader, runtime: runtimeType, timeout: 10 * time.Second}
}

var _ prometheus.Collector = (*ConditionCollector)(nil)

// Describe sends the gauge's description.
func (c *ConditionCollector) Describe(ch chan<- *prometheus.Desc) { ch <- conditionDesc }

// Collect lists the ContainerRuntimes and sends one series per condition and status. A failed list is reported
// as an invalid metric, so the scrape fails visibly instead of showing no conditions.
func (c *ConditionCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	list := &extensionsv1alpha1.ContainerRuntimeList{}
	if err := c.reader.List(ctx, list); err != nil {
		ch <- prometheus.NewInvalidMetric(conditionDesc, fmt.Errorf("listing ContainerRuntimes for %s: %w", ConditionMetric, err))
		return
	}
	for i := range list.Items {
		cr := &list.Items[i]
		if cr.Spec.Type != c.runtime {
			continue
		}
		for _, cond := range cr.Status.Conditions {
			for _, s := range statuses {
				ch <- prometheus.MustNewConstMetric(conditionDesc, prometheus.GaugeValue, boolValue(cond.Status == s),
					cr.Namespace, cr.Name, cr.Spec.WorkerPool.Name, string(cond.Type), string(s))
			}
		}
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
