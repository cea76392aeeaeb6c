// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring

import (
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddToScheme adds the prometheus-operator types of the objects this package builds (PrometheusRule,
// ScrapeConfig) to scheme.
func AddToScheme(scheme *runtime.Scheme) error {
	if err := monitoringv1.AddToScheme(scheme); err != nil {
		return err
	}
	return monitoringv1alpha1.AddToScheme(scheme)
}
