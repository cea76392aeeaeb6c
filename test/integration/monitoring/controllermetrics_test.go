// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1beta1constants "github.com/gardener/gardener/pkg/apis/core/v1beta1/constants"
	extensionsv1alpha1 "github.com/gardener/gardener/pkg/apis/extensions/v1alpha1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/controllermetrics"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/gardenerfixtures"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// series is one sample of a scrape: its labels (with __name__) and value.
type series struct {
	labels map[string]string
	value  float64
}

// TestControllerMetrics scrapes the real controller's /metrics: every condition the health check wrote on a
// pool's ContainerRuntime is a gauge per status (1 for its status, 0 for the others), and the reconcile is counted
// as a success. The scraped condition series are then the input of the seed rules' promtool test
// (seedrules_test.go).
func TestControllerMetrics(t *testing.T) {
	s := stack(t)
	c := seedClient(t, s)
	ctx := context.Background()
	shoot := gardenerfixtures.Shoot("mon", "metrics", "1.33.4")
	ns := gardenerfixtures.Namespace(shoot)
	testutil.Must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	testutil.Must(t, c.Create(ctx, gardenerfixtures.Cluster(shoot)))
	createShootAccessSecret(t, c, s, ns)
	testutil.Must(t, c.Create(ctx, gardenerfixtures.ContainerRuntime(ns, "pool-m", nil, v1beta1constants.GardenerOperationReconcile)))
	t.Cleanup(func() { deleteRuntime(t, c, ns, "pool-m") })
	waitSucceeded(t, c, ns, "pool-m", time.Time{})

	var scraped []series
	testutil.EventuallyWithin(t, waitTimeout, "the condition gauges follow the ContainerRuntime's conditions", func() error {
		cr := &extensionsv1alpha1.ContainerRuntime{}
		if err := c.Get(ctx, gardenerfixtures.ContainerRuntimeKey(ns, "pool-m"), cr); err != nil {
			return err
		}
		healthy := false
		for _, cond := range cr.Status.Conditions {
			healthy = healthy || (cond.Type == "SystemComponentsHealthy" && cond.Status == "True")
		}
		if !healthy { // the first health check may run before the ManagedResources exist
			return fmt.Errorf("SystemComponentsHealthy not True yet: %v", cr.Status.Conditions)
		}
		got, err := scrape(s.MetricsURL + "/metrics")
		if err != nil {
			return err
		}
		for _, cond := range cr.Status.Conditions {
			for _, status := range []string{"True", "False", "Progressing", "Unknown"} {
				want := 0.0
				if string(cond.Status) == status {
					want = 1
				}
				m := find(got, controllermetrics.ConditionMetric, map[string]string{"shoot_namespace": ns, "containerruntime": cr.Name,
					"pool": "pool-m", "type": string(cond.Type), "status": status})
				if len(m) != 1 || m[0].value != want {
					return fmt.Errorf("%s{type=%s,status=%s} = %v, want one series of %g (the condition is %s)",
						controllermetrics.ConditionMetric, cond.Type, status, m, want, cond.Status)
				}
			}
		}
		ops := find(got, controllermetrics.OperationsMetric, map[string]string{"operation": "reconcile", "result": "success"})
		if len(ops) != 1 || ops[0].value < 1 {
			return fmt.Errorf("%s{operation=reconcile,result=success} = %v, want >= 1", controllermetrics.OperationsMetric, ops)
		}
		for _, cond := range cr.Status.Conditions {
			t.Logf("condition %s=%s (%s): %s", cond.Type, cond.Status, cond.Reason, cond.Message)
		}
		scraped = find(got, controllermetrics.ConditionMetric, map[string]string{"shoot_namespace": ns})
		return nil
	})
	judgeSeedRules(t, scraped)
}

// scrape reads url and parses it with Prometheus' own text parser.
func scrape(url string) ([]series, error) {
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scraping %s: %s %v", url, resp.Status, err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		return nil, fmt.Errorf("parsing the scrape of %s: %w", url, err)
	}
	var out []series
	for name, f := range families {
		for _, m := range f.GetMetric() {
			l := map[string]string{"__name__": name}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			v := m.GetGauge().GetValue()
			if f.GetType() == dto.MetricType_COUNTER {
				v = m.GetCounter().GetValue()
			}
			out = append(out, series{labels: l, value: v})
		}
	}
	return out, nil
}

func find(all []series, name string, want map[string]string) []series {
	var out []series
	for _, s := range all {
		ok := s.labels["__name__"] == name
		for k, v := range want {
			ok = ok && s.labels[k] == v
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}
