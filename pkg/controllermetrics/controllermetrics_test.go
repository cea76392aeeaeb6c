// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package controllermetrics_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	promtestutil "github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	extensionscontroller "github.com/gardener/gardener/extensions/pkg/controller"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"
	reconcilerutils "github.com/gardener/gardener/pkg/controllerutils/reconciler"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controllermetrics"
)

func runtimeOf(ns, name, typ, pool string, conditions ...gardencorev1beta1.Condition) *extensionsv1alpha1.ContainerRuntime {
	cr := &extensionsv1alpha1.ContainerRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	cr.Spec.Type = typ
	cr.Spec.WorkerPool.Name = pool
	cr.Status.Conditions = conditions
	return cr
}

// TestConditionCollector: one series per condition and status of the gvisor ContainerRuntimes only, 1 for the
// condition's status.
func TestConditionCollector(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := extensionscontroller.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		runtimeOf("shoot--p--a", "gvisor-w1", "gvisor", "w1",
			gardencorev1beta1.Condition{Type: "EveryNodeReady", Status: gardencorev1beta1.ConditionFalse}),
		runtimeOf("shoot--p--a", "other-w1", "kata", "w1",
			gardencorev1beta1.Condition{Type: "EveryNodeReady", Status: gardencorev1beta1.ConditionTrue}),
	).Build()
	var want strings.Builder
	want.WriteString("# HELP gvisor_containerruntime_condition " + helpOf(t) + "\n# TYPE gvisor_containerruntime_condition gauge\n")
	for _, s := range []string{"False", "Progressing", "True", "Unknown"} {
		v := 0
		if s == "False" {
			v = 1
		}
		fmt.Fprintf(&want, "gvisor_containerruntime_condition{containerruntime=\"gvisor-w1\",pool=\"w1\",shoot_namespace=\"shoot--p--a\",status=%q,type=\"EveryNodeReady\"} %d\n", s, v)
	}
	if err := promtestutil.CollectAndCompare(controllermetrics.NewConditionCollector(c, "gvisor"), strings.NewReader(want.String())); err != nil {
		t.Fatal(err)
	}
}

func helpOf(t *testing.T) string {
	t.Helper()
	ch := make(chan *prometheus.Desc, 1)
	controllermetrics.NewConditionCollector(nil, "gvisor").Describe(ch)
	d := (<-ch).String()
	i := strings.Index(d, `help: "`) + len(`help: "`)
	return d[i : i+strings.Index(d[i:], `"`)]
}

// TestResult: a requeue (also wrapped) is a wait, not an error.
func TestResult(t *testing.T) {
	requeue := &reconcilerutils.RequeueAfterError{Cause: errors.New("waiting")}
	for err, want := range map[error]string{
		nil: controllermetrics.ResultSuccess, requeue: controllermetrics.ResultRequeue,
		fmt.Errorf("delete: %w", requeue): controllermetrics.ResultRequeue, errors.New("boom"): controllermetrics.ResultError,
	} {
		if got := controllermetrics.Result(err); got != want {
			t.Errorf("Result(%v) = %s, want %s", err, got, want)
		}
	}
}

// TestRegisterReplaces: a second registration (a restarted manager in the same process) replaces the first
// instead of failing.
func TestRegisterReplaces(t *testing.T) {
	reg := prometheus.NewRegistry()
	for range 2 {
		if err := controllermetrics.Register(reg, controllermetrics.NewOperations()); err != nil {
			t.Fatal(err)
		}
	}
}
