// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring

import (
	"fmt"
	"io/fs"
	"sort"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/charts"
)

// RulesDir is the directory of the rule files inside charts.Internal; every *.rules.yaml in it is in Prometheus'
// rule file format (promtool checks and tests them as files: test/monitoring).
const RulesDir = charts.MonitoringPath + "/rules"

// ruleFile is Prometheus' rule file format, whose groups the PrometheusRule's spec carries unchanged.
type ruleFile struct {
	Groups []monitoringv1.RuleGroup `json:"groups"`
}

// RuleGroups are the groups of every rule file, files in name order and groups in file order.
func RuleGroups() ([]monitoringv1.RuleGroup, error) {
	files, err := fs.Glob(charts.Internal, RulesDir+"/*.rules.yaml")
	if err != nil {
		return nil, fmt.Errorf("listing the rule files in %s: %w", RulesDir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no rule files (*.rules.yaml) in charts/%s", RulesDir)
	}
	sort.Strings(files)
	var groups []monitoringv1.RuleGroup
	for _, f := range files {
		raw, err := fs.ReadFile(charts.Internal, f)
		if err != nil {
			return nil, fmt.Errorf("reading rule file charts/%s: %w", f, err)
		}
		var rf ruleFile
		// Strict: a key the PrometheusRule cannot carry (a typo, a field of a newer Prometheus) fails here, at
		// build time in the tests, instead of being dropped silently from the object.
		if err := yaml.UnmarshalStrict(raw, &rf); err != nil {
			return nil, fmt.Errorf("rule file charts/%s is not a Prometheus rule file the PrometheusRule can carry: %w", f, err)
		}
		if len(rf.Groups) == 0 {
			return nil, fmt.Errorf("rule file charts/%s has no groups", f)
		}
		groups = append(groups, rf.Groups...)
	}
	return groups, nil
}

// PrometheusRule is the shoot Prometheus' rules and alerts on gVisor: the groups of every rule file.
func PrometheusRule(namespace string) (*monitoringv1.PrometheusRule, error) {
	groups, err := RuleGroups()
	if err != nil {
		return nil, err
	}
	return &monitoringv1.PrometheusRule{
		TypeMeta:   metav1.TypeMeta{APIVersion: monitoringv1.SchemeGroupVersion.String(), Kind: monitoringv1.PrometheusRuleKind},
		ObjectMeta: objectMeta(ObjectName, namespace, map[string]string{"prometheus": ShootPrometheus}),
		Spec:       monitoringv1.PrometheusRuleSpec{Groups: groups},
	}, nil
}
