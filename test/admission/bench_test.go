// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/admission"
)

// BenchmarkWebhookHTTPS measures one admission request end to end in-process, as the API server sends it: an
// AdmissionReview (update of a gVisor Shoot whose flags changed) POSTed over TLS (keep-alive, like the API
// server's client) to the real server (app.Run), decoded, validated, answered, read back. It reports p50 and p99
// over b.N requests (BENCHMARKS.md); it asserts no timing.
// Run: go test ./test/admission -run '^$' -bench WebhookHTTPS -benchtime 5000x
func BenchmarkWebhookHTTPS(b *testing.B) {
	w := admission.Start(b)
	review, err := json.Marshal(newReview(admissionv1.Update, "demo",
		shootJSON(`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{"net-raw":"true","debug":"true","platform":"systrap"}}`),
		shootJSON(`{"configFlags":{"net-raw":"true"}}`)))
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		resp := postReview(b, w.Client, w.URL, review)
		lat = append(lat, time.Since(start))
		if !resp.Allowed {
			b.Fatalf("refused: %+v", resp.Result)
		}
	}
	b.StopTimer()
	reportLatencies(b, lat)
}

// postReview POSTs an AdmissionReview over the client's keep-alive TLS connection, as an API server does, and
// returns the answer, read to the end.
func postReview(b testing.TB, client *http.Client, url string, review []byte) *admissionv1.AdmissionResponse {
	b.Helper()
	resp, err := client.Post(url, "application/json", bytes.NewReader(review))
	if err != nil {
		b.Fatal(err)
	}
	var out admissionv1.AdmissionReview
	err = json.NewDecoder(resp.Body).Decode(&out)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || out.Response == nil || (!out.Response.Allowed && out.Response.Result == nil) {
		b.Fatalf("HTTP %d, %v, %+v", resp.StatusCode, err, out.Response)
	}
	return out.Response
}

// reportLatencies reports the median, the 99th percentile and the maximum of lat (BENCHMARKS.md quotes them).
func reportLatencies(b *testing.B, lat []time.Duration) {
	b.Helper()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Nanoseconds())/1e3, "max-µs")
}
