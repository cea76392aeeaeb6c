// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/prometheus"
	"gvisor.dev/gvisor/pkg/sentry/control"
	"gvisor.dev/gvisor/runsc/boot"
)

// fakeSandbox answers the three control calls as a test says: at once, after a delay, never (hang), with an error
// (a vanished sandbox), or with container usage of its choosing (a lying sentry).
type fakeSandbox struct {
	delay time.Duration
	hang  chan struct{} // never closed
	err   error
	usage map[string]uint64
	calls atomic.Int32
}

func (f *fakeSandbox) ExportMetrics(control.MetricsExportOpts) (*prometheus.Snapshot, error) {
	f.calls.Add(1)
	if f.hang != nil {
		<-f.hang
	}
	time.Sleep(f.delay)
	return prometheus.NewSnapshot(), f.err
}

func (f *fakeSandbox) Usage(bool) (control.MemoryUsage, error) {
	return control.MemoryUsage{Total: 1 << 20}, nil
}

func (f *fakeSandbox) Event(string) (*boot.EventOut, error) {
	return &boot.EventOut{ContainerUsage: f.usage}, nil
}

// servedFake is sandbox id, with pod name id, whose runsc state knows the containers of known.
func servedFake(id string, f *fakeSandbox, known map[string]string, verify func(*prometheus.Snapshot) error) *served {
	if verify == nil {
		verify = func(*prometheus.Snapshot) error { return nil }
	}
	return &served{id: id, calls: f, labels: map[string]string{"sandbox": id, "pod_name": id, "namespace_name": "tenant"},
		metadata: metadata(nil), containers: known, verify: verify, cleanup: func() {}}
}

// scrape runs one scrape of s over the given served sandboxes; it fails the test if the scrape does not return
// within a bound far above ScrapeBudget (a scrape that waits for a hung sandbox never returns).
func scrape(ctx context.Context, t *testing.T, s *Server) (string, error) {
	t.Helper()
	type result struct {
		out string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var b bytes.Buffer
		if err := s.acquire(ctx); err != nil {
			ch <- result{err: err}
			return
		}
		defer s.release()
		err := s.write(ctx, &b)
		ch <- result{b.String(), err}
	}()
	select {
	case r := <-ch:
		return r.out, r.err
	case <-time.After(4 * ScrapeBudget):
		t.Fatal("the scrape did not return: one sandbox held it")
		return "", nil
	}
}

func TestScrapeIsNotSpoiledByOneSandbox(t *testing.T) {
	healthy := func() *fakeSandbox { return &fakeSandbox{usage: map[string]uint64{"c1": 2e9}} }
	known := map[string]string{"c1": "app"}
	for _, tc := range []struct {
		name        string
		bad         *fakeSandbox
		verify      func(*prometheus.Snapshot) error
		wantBroken  int
		wantMissing []string // substrings that must not be in the output
	}{
		{name: "hung", bad: &fakeSandbox{hang: make(chan struct{})}, wantBroken: 1},
		{name: "slow past its timeout", bad: &fakeSandbox{delay: time.Second}, wantBroken: 1},
		{name: "vanished", bad: &fakeSandbox{err: errors.New("connection refused")}, wantBroken: 1},
		{name: "metrics failing verification", bad: &fakeSandbox{}, verify: func(*prometheus.Snapshot) error { return errors.New("counter went backwards") }, wantBroken: 1},
		{name: "lying about its containers", bad: &fakeSandbox{usage: map[string]uint64{
			"c1": 1e9, "not-in-state": 5e9, "evil\"} 1\nrunsc_fake_metric{a=\"b": 1, "back\\slash": 1,
		}}, wantMissing: []string{"not-in-state", "evil", "runsc_fake_metric", "back\\"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{Prefix: "runsc_", PerPod: true, Timeout: 200 * time.Millisecond}
			s.served = map[string]*served{
				"good-1": servedFake("good-1", healthy(), known, nil),
				"good-2": servedFake("good-2", healthy(), known, nil),
				"bad":    servedFake("bad", tc.bad, known, tc.verify),
			}
			out, err := scrape(context.Background(), t, s)
			if err != nil {
				t.Fatal(err)
			}
			for _, good := range []string{"good-1", "good-2"} {
				if !strings.Contains(out, `runsc_container_cpu_usage_seconds_total{container="app",container_id="c1",namespace_name="tenant",pod_name="`+good+`",sandbox="`+good+`"} 2`) {
					t.Errorf("the healthy sandbox %s's CPU series is missing:\n%s", good, out)
				}
			}
			if want := fmt.Sprintf("runsc_num_sandboxes_broken_metrics %d", tc.wantBroken); !strings.Contains(out, want) {
				t.Errorf("want %q in:\n%s", want, out)
			}
			for _, m := range tc.wantMissing {
				if strings.Contains(out, m) {
					t.Errorf("the output carries %q, which only the sandbox said:\n%s", m, out)
				}
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "runsc_") {
					t.Errorf("malformed line %q", line)
				}
			}
		})
	}
}

// TestSlowSandboxRecovers: a sandbox still answering an earlier scrape is not asked again (its verifier sees its
// snapshots in order) and counts broken; once it answered, it is served again.
func TestSlowSandboxRecovers(t *testing.T) {
	slow := &fakeSandbox{delay: 400 * time.Millisecond, usage: map[string]uint64{"c1": 1e9}}
	s := &Server{Prefix: "runsc_", PerPod: true, Timeout: 100 * time.Millisecond}
	s.served = map[string]*served{"slow": servedFake("slow", slow, map[string]string{"c1": "app"}, nil)}
	for i, want := range []string{"runsc_num_sandboxes_broken_metrics 1", "runsc_num_sandboxes_broken_metrics 1"} {
		if out, err := scrape(context.Background(), t, s); err != nil || !strings.Contains(out, want) {
			t.Fatalf("scrape %d: %v, want %q in:\n%s", i+1, err, want, out)
		}
	}
	if n := slow.calls.Load(); n != 1 {
		t.Errorf("the busy sandbox was asked %d times, want once", n)
	}
	time.Sleep(500 * time.Millisecond)
	slow.delay = 0
	if out, err := scrape(context.Background(), t, s); err != nil || !strings.Contains(out, "runsc_num_sandboxes_broken_metrics 0") {
		t.Errorf("after it answered: %v\n%s", err, out)
	}
}

// TestAbandonedScrapeAsksNoSandbox: a client that connects and hangs up leaves nothing behind: its scrape asks no
// sandbox and marks none busy, so the next real scrape serves them all.
func TestAbandonedScrapeAsksNoSandbox(t *testing.T) {
	f := &fakeSandbox{usage: map[string]uint64{"c1": 1e9}}
	s := &Server{Prefix: "runsc_", PerPod: true}
	s.served = map[string]*served{"a": servedFake("a", f, map[string]string{"c1": "app"}, nil)}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := scrape(gone, t, s); err == nil {
		t.Error("an abandoned scrape succeeded")
	}
	var b bytes.Buffer
	if err := s.Write(gone, &b); err == nil || f.calls.Load() != 0 {
		t.Errorf("Write of an abandoned request: %v, %d calls; want an error and none", err, f.calls.Load())
	}
	out, err := scrape(context.Background(), t, s)
	if err != nil || !strings.Contains(out, "runsc_num_sandboxes_broken_metrics 0") {
		t.Errorf("the next scrape: %v\n%s", err, out)
	}
}

// TestSeriesPerSandboxBounded: a sentry that reports thousands of containers, all of which runsc's state knows
// (a pod cannot have that many, but the state is the sandbox's too), adds at most maxContainers CPU series.
func TestSeriesPerSandboxBounded(t *testing.T) {
	usage, known := map[string]uint64{}, map[string]string{}
	for i := range 5000 {
		id := fmt.Sprintf("c%04d", i)
		usage[id], known[id] = 1, "app"
	}
	s := &Server{Prefix: "runsc_", PerPod: true}
	s.served = map[string]*served{"a": servedFake("a", &fakeSandbox{usage: usage}, known, nil)}
	out, err := scrape(context.Background(), t, s)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "runsc_container_cpu_usage_seconds_total{"); n != maxContainers {
		t.Errorf("%d CPU series for one sandbox, want %d", n, maxContainers)
	}
}

func TestSafeLabelValue(t *testing.T) {
	for v, want := range map[string]bool{
		"app": true, "kube-system": true, "0123abcd": true, "": true,
		"a\"b": false, "a\\b": false, "a\nb": false, "a\x00": false, string([]byte{0xff}): false, strings.Repeat("a", 254): false,
	} {
		if got := safeLabelValue(v); got != want {
			t.Errorf("safeLabelValue(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestNodeOnlyServerNamesNoPod: without PerPod (the OperatingSystemConfig mode's server, which every pod of the shoot
// reaches on the node's port) a scrape names no sandbox, pod, namespace or container, whoever's sandboxes run on
// the node: it says what they add up to.
func TestNodeOnlyServerNamesNoPod(t *testing.T) {
	s := &Server{Prefix: "runsc_", Timeout: time.Second}
	tenantA := servedFake("tenant-a-pod", &fakeSandbox{usage: map[string]uint64{"c1": 2e9}}, map[string]string{"c1": "app"}, nil)
	tenantB := servedFake("tenant-b-pod", &fakeSandbox{usage: map[string]uint64{"c2": 1e9}}, map[string]string{"c2": "db"}, nil)
	tenantB.labels["namespace_name"] = "tenant-b"
	hung := servedFake("tenant-c-pod", &fakeSandbox{hang: make(chan struct{})}, nil, nil)
	s.served = map[string]*served{"a": tenantA, "b": tenantB, "c": hung}
	out, err := scrape(context.Background(), t, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"tenant", "pod_name", "namespace_name", "sandbox=", "container", `="app"`, `="db"`, `"c1"`, `"c2"`} {
		if strings.Contains(out, leak) {
			t.Errorf("the node-only scrape names %q:\n%s", leak, out)
		}
	}
	for _, want := range []string{
		"runsc_num_sandboxes_running 2",
		"runsc_num_sandboxes_broken_metrics 1",
		"runsc_node_sandbox_memory_usage_bytes 2097152", // two sandboxes of 1 MiB each (fakeSandbox.Usage)
		`runsc_node_sandboxes{cpuarch="",fsmode="",network="",overlay="",platform="",version=""} 2`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
}
