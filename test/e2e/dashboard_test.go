// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/monitoring"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/e2e"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/kubenode"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/shootprometheus"
)

// PictureDataEnv names the file TestSandboxMetricsOnRealNode writes the shoot dashboard's query results to (JSON),
// from which hack/dashboard-picture draws docs/images/gvisor-dashboard.png (make dashboard-picture).
const PictureDataEnv = "GVISOR_DASHBOARD_DATA"

// loadMiB is what the gVisor pod writes into its /dev/shm (a tmpfs inside the sandbox: the sentry's memory) in
// each of two steps.
const loadMiB = 24

// checkDashboard puts the gVisor pod through a load (memory in two steps, a CPU burn, the memory released) while
// the real Prometheus scrapes, then runs every query of every shoot dashboard panel over that time as Plutono
// would (a range query): each must return data, and the memory panel must show the pod's growth by the memory it
// wrote. The panels on kube-state-metrics' series read the shoot's kube-state-metrics that runs beside the
// Prometheus. With PictureDataEnv set, the results are written for the docs picture.
func checkDashboard(ctx context.Context, t *testing.T, n *kubenode.Node, p *shootprometheus.Prometheus) {
	t.Helper()
	start := time.Now()
	exerciseGVisorPod(ctx, t, n)
	end := time.Now()

	dashboards, err := monitoring.Dashboards()
	if err != nil {
		t.Fatal(err)
	}
	var picture []pictureDashboard
	for _, file := range slices.Sorted(maps.Keys(dashboards)) {
		var d monitoring.Dashboard
		if err := json.Unmarshal([]byte(dashboards[file]), &d); err != nil {
			t.Fatalf("dashboard %s: %v", file, err)
		}
		pd := pictureDashboard{Title: d.Title, Source: "Our rendering of the panels' range queries on a real Prometheus (prometheus-operator's config) scraping a real gVisor node in test/e2e; not a Plutono screenshot."}
		for _, panel := range d.Panels {
			for _, target := range panel.Targets {
				ranges, err := p.QueryRange(target.Expr, start, end, prometheusInterval)
				if err != nil {
					t.Fatal(err)
				}
				pp := toPicturePanel(panel.Title, panel.FieldConfig.Defaults.Unit, target, ranges, start, end)
				if len(ranges) == 0 {
					t.Errorf("dashboard %s, panel %q: its query %q returns nothing over the run", file, panel.Title, target.Expr)
				}
				pd.Panels = append(pd.Panels, pp)
			}
		}
		picture = append(picture, pd)
	}
	checkMemoryGrowth(t, p, start, end)
	if out := os.Getenv(PictureDataEnv); out != "" {
		raw, err := json.MarshalIndent(picture, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, append(raw, '\n'), 0o644); err != nil {
			t.Fatalf("writing the dashboard's query results to %s (%s): %v", out, PictureDataEnv, err)
		}
		t.Logf("wrote the dashboard's query results to %s", out)
	}
}

// exerciseGVisorPod runs the load in the gVisor pod, about 80 s: idle, 24 MiB written, 48 MiB with a 15 s CPU
// burn, released, idle.
func exerciseGVisorPod(ctx context.Context, t *testing.T, n *kubenode.Node) {
	t.Helper()
	run := func(cmd string) {
		if out, err := e2e.Kubectl(ctx, n, "exec", "-n", "default", "gvisor-app", "--", "sh", "-c", cmd); err != nil {
			t.Fatalf("kubectl exec %q in the gVisor pod: %v\n%s", cmd, err, out)
		}
	}
	pause := func(d time.Duration) {
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(d):
		}
	}
	pause(15 * time.Second)
	run(fmt.Sprintf("dd if=/dev/zero of=/dev/shm/load-1 bs=1M count=%d 2>/dev/null", loadMiB))
	pause(15 * time.Second)
	run(fmt.Sprintf("dd if=/dev/zero of=/dev/shm/load-2 bs=1M count=%d 2>/dev/null", loadMiB))
	run("timeout 15 sh -c 'while :; do :; done' || true")
	pause(10 * time.Second)
	run("rm -f /dev/shm/load-*")
	pause(20 * time.Second)
}

// checkMemoryGrowth: over the run, the recording rule's memory of the gVisor pod rose by at least most of what the
// pod wrote (the sentry accounts the tmpfs pages it holds).
func checkMemoryGrowth(t *testing.T, p *shootprometheus.Prometheus, start, end time.Time) {
	t.Helper()
	const query = `namespace_pod:gvisor_sandbox_memory_usage_bytes:sum{namespace="default",pod="gvisor-app"}`
	ranges, err := p.QueryRange(query, start, end, prometheusInterval)
	if err != nil || len(ranges) != 1 {
		t.Fatalf("%s over the run: %d series, %v", query, len(ranges), err)
	}
	lo, hi := -1.0, 0.0
	for _, v := range ranges[0].Points() {
		if lo < 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	if want := float64(2*loadMiB-8) * (1 << 20); hi-lo < want {
		t.Errorf("the gVisor pod's recorded memory ranged %.0f..%.0f bytes over the run, less than the %d MiB it wrote (want a rise of at least %.0f)", lo, hi, 2*loadMiB, want)
	}
	t.Logf("the gVisor pod's recorded memory over the load: %.1f..%.1f MiB", lo/(1<<20), hi/(1<<20))
}

// pictureDashboard is what hack/dashboard-picture draws: per panel its title, unit and series over the run.
type pictureDashboard struct {
	Title  string         `json:"title"`
	Source string         `json:"source"`
	Panels []picturePanel `json:"panels"`
}

type picturePanel struct {
	Title   string          `json:"title"`
	Expr    string          `json:"expr"`
	Unit    string          `json:"unit"`
	Seconds []int           `json:"seconds"`
	Series  []pictureSeries `json:"series"`
}

type pictureSeries struct {
	Legend string    `json:"legend"`
	Values []float64 `json:"values"` // per step; negative where the query gave nothing (JSON has no NaN)
}

func toPicturePanel(title, unit string, target monitoring.Target, ranges []shootprometheus.Range, start, end time.Time) picturePanel {
	pp := picturePanel{Title: title, Expr: target.Expr, Unit: unit}
	step := int64(prometheusInterval / time.Second)
	var stamps []int64
	for ts := start.Unix(); ts <= end.Unix(); ts += step {
		stamps = append(stamps, ts)
		pp.Seconds = append(pp.Seconds, int(ts-start.Unix()))
	}
	byLegend := map[string][]float64{}
	for _, r := range ranges {
		legend := legendOf(target.LegendFormat, r.Metric)
		values := byLegend[legend]
		if values == nil {
			values = make([]float64, len(stamps))
			for i := range values {
				values[i] = -1
			}
		}
		points := r.Points()
		for i, ts := range stamps {
			if v, ok := points[ts]; ok {
				values[i] = v
			}
		}
		byLegend[legend] = values
	}
	legends := slices.Collect(maps.Keys(byLegend))
	sort.Strings(legends)
	for _, l := range legends {
		pp.Series = append(pp.Series, pictureSeries{Legend: l, Values: byLegend[l]})
	}
	return pp
}

// legendOf fills a Plutono legend format ({{label}}) from the series' labels.
func legendOf(format string, labels map[string]string) string {
	return regexp.MustCompile(`\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}`).ReplaceAllStringFunc(format, func(s string) string {
		return labels[strings.Trim(s, "{} ")]
	})
}
