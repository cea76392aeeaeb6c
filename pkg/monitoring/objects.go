// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
)

// ShootObjects are the monitoring objects of the shoot whose namespace on the seed is namespace, for a landscape
// delivering gVisor in mode, in a fixed order: the ScrapeConfig of the installation pods, the PrometheusRule, the
// dashboard ConfigMap and, in the OperatingSystemConfig mode, the ScrapeConfig of the nodes' metric-server units.
// That mode keeps the pods' scrape: while a landscape switches, the pools not handed over yet still have their
// installation pods (docs/delivery-modes.md).
func ShootObjects(namespace string, mode delivery.Mode) ([]client.Object, error) {
	rule, err := PrometheusRule(namespace)
	if err != nil {
		return nil, err
	}
	dashboards, err := DashboardConfigMap(namespace)
	if err != nil {
		return nil, err
	}
	objs := []client.Object{ScrapeConfig(namespace), rule, dashboards}
	if mode == delivery.OperatingSystemConfig {
		objs = append(objs, NodeScrapeConfig(namespace))
	}
	return objs, nil
}

// ShootObjectsYAML are the ShootObjects as YAML documents in their order, as gvisor-render prints them.
func ShootObjectsYAML(namespace string, mode delivery.Mode) ([]byte, error) {
	objs, err := ShootObjects(namespace, mode)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, o := range objs {
		raw, err := yaml.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("%T %s: %w", o, o.GetName(), err)
		}
		b.WriteString("---\n")
		b.Write(raw)
	}
	return b.Bytes(), nil
}

// OtherModesObjects are the monitoring objects a shoot has in another delivery mode than mode and not in mode
// (the nodes' ScrapeConfig, for the DaemonSet mode): what a switch back to that mode leaves to remove.
func OtherModesObjects(namespace string, mode delivery.Mode) []client.Object {
	if mode == delivery.OperatingSystemConfig {
		return nil
	}
	return []client.Object{NodeScrapeConfig(namespace)}
}
