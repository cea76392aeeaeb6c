// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// sample is one series of a scrape.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// scrape reads the metric server's endpoint once and parses it with Prometheus' own text parser (a malformed
// exposition fails here, as it would fail a real scrape).
func (ms *metricServer) scrape(t testing.TB) ([]sample, string) {
	t.Helper()
	client := http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(ms.url())
	if err != nil {
		t.Fatalf("scraping %s: %v", ms.url(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scraping %s: %s %v\n%s", ms.url(), resp.Status, err, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parsing the scrape of %s: %v\n%s", ms.url(), err, body)
	}
	var out []sample
	for name, f := range families {
		for _, m := range f.GetMetric() {
			out = append(out, sample{name: name, labels: labelMap(m), value: value(f.GetType(), m)})
		}
	}
	return out, string(body)
}

func labelMap(m *dto.Metric) map[string]string {
	l := map[string]string{}
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

func value(t dto.MetricType, m *dto.Metric) float64 {
	switch t {
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue()
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue()
	case dto.MetricType_UNTYPED:
		return m.GetUntyped().GetValue()
	default:
		return m.GetHistogram().GetSampleSum()
	}
}

// find returns the samples named name whose labels include want.
func find(samples []sample, name string, want map[string]string) []sample {
	var out []sample
	for _, s := range samples {
		if s.name != name {
			continue
		}
		ok := true
		for k, v := range want {
			ok = ok && s.labels[k] == v
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// one returns the single sample named name with labels want, or fails.
func one(t testing.TB, samples []sample, name string, want map[string]string) sample {
	t.Helper()
	got := find(samples, name, want)
	if len(got) != 1 {
		t.Fatalf("want exactly one %s%v in the scrape, got %d: %v", name, want, len(got), got)
	}
	return got[0]
}

func (s sample) String() string { return fmt.Sprintf("%s%v %g", s.name, s.labels, s.value) }
