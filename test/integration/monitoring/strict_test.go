// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestCRDSchemasRefuseUnknownFields: the API server with prometheus-operator's CRDs really judges these objects:
// with strict field validation it accepts pkg/monitoring's ScrapeConfigs (of the pods, and of the nodes in the
// OperatingSystemConfig mode) and PrometheusRule (dry run), and refuses
// the same objects with one unknown field, naming it, and with a wrong type. So the acceptance in
// TestShootMonitoringLifecycle means something.
func TestCRDSchemasRefuseUnknownFields(t *testing.T) {
	s := stack(t)
	c := client.WithFieldValidation(seedClient(t, s), metav1.FieldValidationStrict)
	ctx := context.Background()
	ns := "strict-monitoring"
	testutil.Must(t, client.IgnoreAlreadyExists(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})))
	objs, err := monitoring.ShootObjects(ns, delivery.OperatingSystemConfig) // every prometheus-operator object of both modes
	testutil.Must(t, err)
	for _, o := range objs {
		if _, dashboards := o.(*corev1.ConfigMap); dashboards {
			continue
		}
		u := toUnstructured(t, o)
		if err := c.Create(ctx, u.DeepCopy(), client.DryRunAll); err != nil {
			t.Fatalf("%s refused under its CRD's schema: %v", kind(o), err)
		}
		bad := u.DeepCopy()
		testutil.Must(t, unstructured.SetNestedField(bad.Object, "x", "spec", "honourLabels"))
		err := c.Create(ctx, bad, client.DryRunAll)
		if err == nil || !strings.Contains(err.Error(), "honourLabels") {
			t.Errorf("%s with the unknown field spec.honourLabels: want a refusal naming it, got %v", kind(o), err)
		}
	}
	rule := toUnstructured(t, objs[1])
	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	g := groups[0].(map[string]any)
	g["rules"].([]any)[0].(map[string]any)["for"] = "fifteen minutes"
	testutil.Must(t, unstructured.SetNestedSlice(rule.Object, groups, "spec", "groups"))
	if err := c.Create(ctx, rule, client.DryRunAll); err == nil || !strings.Contains(err.Error(), "for") {
		t.Errorf("a PrometheusRule with for: \"fifteen minutes\": want a refusal by the CRD's duration pattern, got %v", err)
	}
}

func toUnstructured(t *testing.T, o client.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	testutil.Must(t, err)
	return &unstructured.Unstructured{Object: m}
}
