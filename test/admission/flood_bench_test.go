// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// The flood of BenchmarkAdmissionUnderFlood: what one project member who may update a gVisor Shoot can keep up.
const (
	// floodLarge is how many of the costliest updates are kept in flight.
	floodLarge = 12
	// floodFor is how long the flood lasts.
	floodFor = 20 * time.Second
	// smallEvery is how often another Shoot's small review arrives meanwhile.
	smallEvery = 500 * time.Millisecond
	// webhookTimeout is the timeout gardener-apiserver gives the webhook (the chart's timeoutSeconds): a review
	// not answered by then is a failed write of its Shoot.
	webhookTimeout = 10 * time.Second
)

// floodAnswer is one review's outcome.
type floodAnswer struct {
	took time.Duration
	// code is the HTTP status; 0: no answer within webhookTimeout.
	code    int
	allowed bool
}

// BenchmarkAdmissionUnderFlood runs the admission binary as deployed and keeps floodLarge updates of the costliest
// content it accepts in flight for floodFor (a 3 MiB Shoot whose every worker has a flag set of its own, over a
// 1.5 MiB stored one), each sent again as soon as it is answered, while a 2 KiB review of another Shoot arrives
// every smallEvery. It reports the small reviews' p99 and maximum, the large ones' maximum and how many got a
// verdict, a 429 or no answer within the webhook's timeout, and the process's peak RSS; it asserts only that no valid
// small review is refused (BENCHMARKS.md "Admission under a flood" holds the figures).
// Run: go test ./test/admission -run '^$' -bench AdmissionUnderFlood -benchtime 1x
func BenchmarkAdmissionUnderFlood(b *testing.B) {
	bin := buildAdmission(b)
	large := reviewBody(b, admissionv1.Update,
		shootWithWorkers("big", distinctValidConfig, RequestLimit),
		shootWithWorkers("big", func(int) string { return `{"configFlags":{"debug-log":"/var/log/runsc/old"}}` }, 3<<19))
	small := reviewBody(b, admissionv1.Update,
		shootWithWorkers("plain", func(int) string { return `{"configFlags":{"net-raw":"true"}}` }, 1<<10),
		shootJSON(`{"configFlags":{"debug":"true"}}`))
	for b.Loop() {
		p := startAdmissionProcess(b, bin)
		smalls, larges := flood(p, small, large)
		b.StopTimer()
		var lat []time.Duration
		smallUnanswered := 0
		for _, a := range smalls {
			if a.code == http.StatusOK && !a.allowed {
				b.Fatalf("a small valid review refused under the flood, after %s", a.took)
			}
			if a.code != http.StatusOK {
				smallUnanswered++ // no verdict within the webhook's timeout, or a 429: a refused Shoot write
			}
			lat = append(lat, a.took)
		}
		b.ReportMetric(float64(smallUnanswered), "small-without-verdict")
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "small-p99-ms")
		b.ReportMetric(float64(lat[len(lat)-1].Milliseconds()), "small-max-ms")
		var verdicts, refused, unanswered int
		var largeMax time.Duration
		for _, a := range larges {
			largeMax = max(largeMax, a.took)
			switch a.code {
			case http.StatusOK:
				verdicts++
			case http.StatusTooManyRequests:
				refused++
			default:
				unanswered++
			}
		}
		b.ReportMetric(float64(largeMax.Milliseconds()), "large-max-ms")
		b.ReportMetric(float64(verdicts), "large-verdicts")
		b.ReportMetric(float64(refused), "large-429")
		b.ReportMetric(float64(unanswered), "large-unanswered")
		b.ReportMetric(float64(peakRSS(b, p.cmd.Process.Pid))/(1<<20), "peak-RSS-MiB")
		b.StartTimer()
	}
}

// flood runs the flood against p and returns every small and large review's outcome.
func flood(p *admissionProcess, small, large []byte) (smalls, larges []floodAnswer) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	end := time.Now().Add(floodFor)
	for range floodLarge {
		wg.Go(func() {
			for time.Now().Before(end) {
				a := send(p, large)
				mu.Lock()
				larges = append(larges, a)
				mu.Unlock()
			}
		})
	}
	for tick := time.NewTicker(smallEvery); time.Now().Before(end); <-tick.C {
		wg.Go(func() {
			a := send(p, small)
			mu.Lock()
			smalls = append(smalls, a)
			mu.Unlock()
		})
	}
	wg.Wait()
	return smalls, larges
}

// send posts review as gardener-apiserver does, giving up after webhookTimeout.
func send(p *admissionProcess, review []byte) floodAnswer {
	ctx, cancel := context.WithTimeout(context.Background(), webhookTimeout)
	defer cancel()
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url+"?timeout=10s", bytes.NewReader(review))
	if err != nil {
		return floodAnswer{took: time.Since(start)}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return floodAnswer{took: time.Since(start)}
	}
	defer resp.Body.Close()
	a := floodAnswer{code: resp.StatusCode}
	if resp.StatusCode == http.StatusOK {
		var out admissionv1.AdmissionReview
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Response == nil {
			a.code = 0
		} else {
			a.allowed = out.Response.Allowed
		}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	a.took = time.Since(start)
	return a
}
