// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ShootObjects are the monitoring objects of the shoot whose namespace on the seed is namespace, in a fixed order:
// the ScrapeConfig, the PrometheusRule, the dashboard ConfigMap.
func ShootObjects(namespace string) ([]client.Object, error) {
	rule, err := PrometheusRule(namespace)
	if err != nil {
		return nil, err
	}
	dashboards, err := DashboardConfigMap(namespace)
	if err != nil {
		return nil, err
	}
	return []client.Object{ScrapeConfig(namespace), rule, dashboards}, nil
}
