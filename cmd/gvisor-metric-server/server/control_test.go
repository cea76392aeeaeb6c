// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	controlserver "gvisor.dev/gvisor/pkg/control/server"
	"gvisor.dev/gvisor/pkg/metric"
	pb "gvisor.dev/gvisor/pkg/metric/metric_go_proto"
	"gvisor.dev/gvisor/pkg/prometheus"
	"gvisor.dev/gvisor/pkg/sentry/control"
	"gvisor.dev/gvisor/runsc/boot"
)

// TestMain registers gVisor's metrics once, as a sentry does at start: its exporter and registration need them.
func TestMain(m *testing.M) {
	if err := metric.Initialize(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// Usage and containerManager stand in for the sentry's control objects of the same names (urpc routes a call by
// the receiver's type name): the test has no kernel to account memory or containers to time. Metrics is gVisor's own.
type Usage struct{}

func (*Usage) Collect(_ *control.MemoryUsageOpts, out *control.MemoryUsage) error {
	*out = control.MemoryUsage{Anonymous: 3 << 20, Total: 5 << 20}
	return nil
}

type containerManager struct{}

func (*containerManager) Event(cid *string, out *boot.EventOut) error {
	*out = boot.EventOut{ContainerUsage: map[string]uint64{*cid: 7e9}}
	return nil
}

// sentryControlServer serves gVisor's own control server (pkg/control/server, as a sandbox's sentry does) on a Unix
// socket under dir, with gVisor's metrics exporter, and returns the socket's path.
func sentryControlServer(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "runsc-sandbox.sock")
	fd, err := controlserver.CreateSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := controlserver.CreateFromFD(fd)
	if err != nil {
		t.Fatal(err)
	}
	srv.Register(&control.Metrics{})
	srv.Register(&Usage{})
	srv.Register(&containerManager{})
	if err := srv.StartServing(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop(time.Second) })
	return path
}

// hostileSandbox listens on a Unix socket under dir and answers every call with answer (after reading the call), or
// never when answer is nil; it returns the socket's path.
func hostileSandbox(t *testing.T, dir string, answer func(io.Writer)) string {
	t.Helper()
	path := filepath.Join(dir, "hostile.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_, _ = conn.Read(make([]byte, 4096))
				if answer == nil {
					_, _ = io.Copy(io.Discard, conn) // holds the connection until the caller gives up
					return
				}
				answer(conn)
			}()
		}
	}()
	return path
}

// endless writes the start of a metrics answer and then one string that never ends.
func endless(w io.Writer) {
	if _, err := io.WriteString(w, `{"success":true,"result":{"snapshot":{"data":[{"metric":{"name":"x","help":"`); err != nil {
		return
	}
	chunk := []byte(strings.Repeat("a", 64<<10))
	for {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

func socketCalls(path string, budget *answerBudget) *controlSocket {
	return &controlSocket{path: func() string { return path }, timeout: 2 * time.Second, budget: budget}
}

// TestControlSocketSpeaksTheSentrysProtocol: the capped calls reach gVisor's own control server and decode what its
// metrics exporter answers; the budget is whole again after each call.
func TestControlSocketSpeaksTheSentrysProtocol(t *testing.T) {
	budget := newAnswerBudget()
	c := socketCalls(sentryControlServer(t, t.TempDir()), budget)
	snap, err := c.ExportMetrics(control.MetricsExportOpts{})
	if err != nil {
		t.Fatalf("Metrics.Export through gVisor's control server: %v", err)
	}
	if snap.When.IsZero() {
		t.Errorf("the exported snapshot has no time: %+v", snap)
	}
	mem, err := c.Usage(false)
	if err != nil || mem.Total != 5<<20 || mem.Anonymous != 3<<20 {
		t.Errorf("Usage.Collect: %+v, %v", mem, err)
	}
	ev, err := c.Event("c1")
	if err != nil || ev.ContainerUsage["c1"] != 7e9 {
		t.Errorf("containerManager.Event: %+v, %v", ev, err)
	}
	if used := budget.used.Load(); used != 0 {
		t.Errorf("the budget holds %d bytes after the calls returned", used)
	}
}

// TestControlSocketFailsFor names a socket that is not there and a method the sandbox refuses.
func TestControlSocketFailsFor(t *testing.T) {
	if _, err := socketCalls(filepath.Join(t.TempDir(), "gone.sock"), nil).Usage(false); err == nil {
		t.Error("a missing control socket: no error")
	}
	if _, err := socketCalls("", nil).Usage(false); err == nil || !strings.Contains(err.Error(), "no control socket") {
		t.Errorf("a sandbox without a control socket: %v", err)
	}
	c := socketCalls(sentryControlServer(t, t.TempDir()), nil)
	if err := c.call("Nothing.Here", nil, nil); err == nil || !strings.Contains(err.Error(), "Nothing.Here failed in the sandbox") {
		t.Errorf("a method the sandbox does not have: %v", err)
	}
}

// TestHostileAnswerIsCutOffAtTheCap: a sandbox that answers without end is read up to MaxAnswerBytes and no further.
func TestHostileAnswerIsCutOffAtTheCap(t *testing.T) {
	budget := newAnswerBudget()
	c := socketCalls(hostileSandbox(t, t.TempDir(), endless), budget)
	_, err := c.ExportMetrics(control.MetricsExportOpts{})
	if !errors.Is(err, errAnswerTooLarge) {
		t.Fatalf("an endless answer: want %v, got %v", errAnswerTooLarge, err)
	}
	if used := budget.used.Load(); used != 0 {
		t.Errorf("the budget holds %d bytes after the call failed", used)
	}
}

// TestStuckSandboxEndsAtTheDeadline: a sandbox that takes the call and never answers ends the call at its deadline,
// so the goroutine asking it ends too.
func TestStuckSandboxEndsAtTheDeadline(t *testing.T) {
	c := socketCalls(hostileSandbox(t, t.TempDir(), nil), nil)
	c.timeout = 100 * time.Millisecond
	_, err := c.Usage(false)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a sandbox that never answers: want a deadline error, got %v", err)
	}
}

// TestAnswersInFlightShareTheNodesBudget: an answer that would take the answers in flight past the budget fails at
// once; the bytes come back when the call ends.
func TestAnswersInFlightShareTheNodesBudget(t *testing.T) {
	budget := &answerBudget{limit: MaxAnswerBytes / 2}
	c := socketCalls(hostileSandbox(t, t.TempDir(), endless), budget)
	_, err := c.ExportMetrics(control.MetricsExportOpts{})
	if !errors.Is(err, errBudgetSpent) {
		t.Fatalf("an answer past the node's budget: want %v, got %v", errBudgetSpent, err)
	}
	if used := budget.used.Load(); used != 0 {
		t.Errorf("the budget holds %d bytes after the call failed", used)
	}
}

// TestHostileSandboxCostsOnlyItsOwnSeries: in a scrape over gVisor's control server and a sandbox answering without
// end, the honest sandbox's series are served and the hostile one counts broken.
func TestHostileSandboxCostsOnlyItsOwnSeries(t *testing.T) {
	s := &Server{Prefix: "runsc_", PerPod: true, Timeout: 2 * time.Second}
	budget := newAnswerBudget()
	honest := servedFake("honest", nil, map[string]string{"honest": "app"}, nil)
	honest.calls = socketCalls(sentryControlServer(t, t.TempDir()), budget)
	hostile := servedFake("hostile", nil, map[string]string{"hostile": "app"}, nil)
	hostile.calls = socketCalls(hostileSandbox(t, t.TempDir(), endless), budget)
	s.served = map[string]*served{"honest": honest, "hostile": hostile}
	out, err := scrape(context.Background(), t, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`runsc_container_cpu_usage_seconds_total{container="app",container_id="honest",namespace_name="tenant",pod_name="honest",sandbox="honest"} 7`,
		"runsc_num_sandboxes_broken_metrics 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, `sandbox="hostile"`) {
		t.Errorf("the hostile sandbox has series:\n%s", out)
	}
}

// TestHonestAnswerFitsTheCap: the largest metrics answer a sandbox of the pinned gVisor can honestly give (every
// metric of gVisor's own registration, every field combination, every counter and bucket non-zero, each value as long
// as it gets) is under half of MaxAnswerBytes.
func TestHonestAnswerFitsTheCap(t *testing.T) {
	reg, err := metric.GetMetricRegistration()
	if err != nil {
		t.Fatal(err)
	}
	snap := prometheus.NewSnapshot()
	for _, m := range reg.GetMetrics() {
		pm := &prometheus.Metric{Name: m.GetPrometheusName(), Help: m.GetDescription(), Type: prometheus.TypeGauge}
		for _, labels := range fieldCombinations(m.GetFields()) {
			d := prometheus.LabeledIntData(pm, labels, math.MaxInt64)
			if m.GetType() == pb.MetricMetadata_TYPE_DISTRIBUTION {
				h := &prometheus.Histogram{Total: *prometheus.NewInt(math.MaxInt64), Min: *prometheus.NewInt(math.MinInt64),
					Max: *prometheus.NewInt(math.MaxInt64), SumOfSquaredDeviations: *prometheus.NewFloat(-math.MaxFloat64)}
				for range len(m.GetDistributionBucketLowerBounds()) + 2 {
					h.Buckets = append(h.Buckets, prometheus.Bucket{UpperBound: *prometheus.NewInt(math.MaxInt64), Samples: math.MaxUint64})
				}
				d = &prometheus.Data{Metric: pm, Labels: labels, HistogramValue: h}
			}
			snap.Add(d)
		}
	}
	answer, err := json.Marshal(urpcResult{Success: true, Result: control.MetricsExportData{Snapshot: snap}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the largest honest answer: %d bytes, %d data points of %d metrics", len(answer), len(snap.Data), len(reg.GetMetrics()))
	if len(answer) > MaxAnswerBytes/2 {
		t.Errorf("the largest honest answer of the pinned gVisor is %d bytes, over half of MaxAnswerBytes (%d): raise the cap", len(answer), MaxAnswerBytes)
	}
}

// fieldCombinations is every label set a metric with fields can export.
func fieldCombinations(fields []*pb.MetricMetadata_Field) []map[string]string {
	out := []map[string]string{nil}
	for _, f := range fields {
		var next []map[string]string
		for _, prev := range out {
			for _, v := range f.GetAllowedValues() {
				m := map[string]string{f.GetFieldName(): v}
				for k, pv := range prev {
					m[k] = pv
				}
				next = append(next, m)
			}
		}
		out = next
	}
	return out
}
