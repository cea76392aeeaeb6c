// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestChartSeedPrometheusRuleIsValid renders the extension chart's seed PrometheusRule (monitoring.seed.alerts) with
// the real helm and creates it (dry run) on the real kube-apiserver with the PrometheusRule CRD, with strict field
// validation: the object the chart ships is one the seed's prometheus-operator CRD accepts as it is.
func TestChartSeedPrometheusRuleIsValid(t *testing.T) {
	s := stack(t)
	_, file, _, _ := runtime.Caller(0)
	chart := filepath.Join(filepath.Dir(file), "..", "..", "..", "charts", "gardener-extension-runtime-gvisor")
	const ns = "extension-runtime-gvisor-rules"
	out, err := exec.Command(realcomponents.Helm(t), "template", "runtime-gvisor", chart, "--namespace", ns,
		"--set", "monitoring.seed.alerts=true", "--show-only", "templates/prometheusrule-seed.yaml").CombinedOutput()
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, out)
	}
	obj := &unstructured.Unstructured{}
	testutil.Must(t, yaml.Unmarshal(out, &obj.Object))
	if obj.GetKind() != "PrometheusRule" {
		t.Fatalf("the chart rendered %q, want a PrometheusRule:\n%s", obj.GetKind(), out)
	}
	c := client.WithFieldValidation(s.Client, metav1.FieldValidationStrict)
	ctx := context.Background()
	testutil.Must(t, client.IgnoreAlreadyExists(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})))
	if err := c.Create(ctx, obj, client.DryRunAll); err != nil {
		t.Fatalf("the chart's seed PrometheusRule is refused under the CRD's schema: %v\n%s", err, out)
	}
}
