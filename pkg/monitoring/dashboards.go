// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/charts"
)

// DashboardsDir is the directory of the Plutono dashboards (JSON) inside charts.Internal.
const DashboardsDir = charts.MonitoringPath + "/dashboards"

// Dashboards are the dashboard files by base name, each checked to be a JSON object with a title and panels.
func Dashboards() (map[string]string, error) {
	files, err := fs.Glob(charts.Internal, DashboardsDir+"/*.json")
	if err != nil {
		return nil, fmt.Errorf("listing the dashboards in %s: %w", DashboardsDir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no dashboards (*.json) in charts/%s", DashboardsDir)
	}
	sort.Strings(files)
	out := make(map[string]string, len(files))
	for _, f := range files {
		raw, err := fs.ReadFile(charts.Internal, f)
		if err != nil {
			return nil, fmt.Errorf("reading dashboard charts/%s: %w", f, err)
		}
		var d Dashboard
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("dashboard charts/%s is not JSON: %w", f, err)
		}
		if d.Title == "" || len(d.Panels) == 0 {
			return nil, fmt.Errorf("dashboard charts/%s needs a title and at least one panel", f)
		}
		out[path.Base(f)] = string(raw)
	}
	return out, nil
}

// Dashboard is the part of a Plutono dashboard that the tests and the docs picture read.
type Dashboard struct {
	Title  string  `json:"title"`
	Panels []Panel `json:"panels"`
}

// Panel is one dashboard panel and its queries.
type Panel struct {
	Title       string   `json:"title"`
	Targets     []Target `json:"targets"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
}

// Target is one query of a panel and its legend format ({{label}} placeholders).
type Target struct {
	Expr         string `json:"expr"`
	LegendFormat string `json:"legendFormat"`
}

// kubeStateMetricsPrefix starts the names of the series of the shoot's kube-state-metrics.
const kubeStateMetricsPrefix = "kube_"

// ReadsKubeStateMetrics reports whether the query reads the shoot's kube-state-metrics (the installation pods'
// restarts, the DaemonSet delivery mode's proof signal) rather than the nodes' gVisor metric servers.
func (t Target) ReadsKubeStateMetrics() bool {
	return strings.Contains(t.Expr, kubeStateMetricsPrefix)
}

// KubeStateMetricsQueries are the queries of the dashboards' panels that read the shoot's kube-state-metrics, in
// dashboard file and panel order.
func KubeStateMetricsQueries() ([]string, error) {
	dashboards, err := Dashboards()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, file := range slices.Sorted(maps.Keys(dashboards)) {
		var d Dashboard
		if err := json.Unmarshal([]byte(dashboards[file]), &d); err != nil {
			return nil, fmt.Errorf("dashboard %s: %w", file, err)
		}
		for _, p := range d.Panels {
			for _, t := range p.Targets {
				if t.ReadsKubeStateMetrics() {
					out = append(out, t.Expr)
				}
			}
		}
	}
	return out, nil
}

// DashboardConfigMap is the shoot Plutono's ConfigMap of our dashboards (one key per dashboard file).
func DashboardConfigMap(namespace string) (*corev1.ConfigMap, error) {
	data, err := Dashboards()
	if err != nil {
		return nil, err
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: objectMeta(DashboardConfigMapName, namespace, map[string]string{DashboardLabel: "true"}),
		Data:       data,
	}, nil
}
