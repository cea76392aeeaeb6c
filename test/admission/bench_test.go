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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/admission"
)

// BenchmarkWebhookHTTPS measures one admission request end to end in-process, as the API server sends it: an
// AdmissionReview (update of a gVisor Shoot whose flags changed) POSTed over TLS (keep-alive, like the API
// server's client) to the real server (app.Run), decoded, validated, answered, read back. It reports p50 and p99
// over b.N requests (BENCHMARKS.md); it asserts no timing.
// Run: go test ./test/admission -run '^$' -bench WebhookHTTPS -benchtime 5000x
func BenchmarkWebhookHTTPS(b *testing.B) {
	w := admission.Start(b)
	review, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:      "0b3e7c52-4c8f-4a52-9d5a-1f0c8b1e2a77",
			Kind:     metav1.GroupVersionKind{Group: "core.gardener.cloud", Version: "v1beta1", Kind: "Shoot"},
			Resource: metav1.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"},
			Name:     "demo", Namespace: "garden-dev", Operation: admissionv1.Update,
			Object:    runtime.RawExtension{Raw: shootJSON(`{"apiVersion":"gvisor.runtime.extensions.config.gardener.cloud/v1alpha1","kind":"GVisorConfiguration","configFlags":{"net-raw":"true","debug":"true","platform":"systrap"}}`)},
			OldObject: runtime.RawExtension{Raw: shootJSON(`{"configFlags":{"net-raw":"true"}}`)},
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		resp, err := w.Client.Post(w.URL, "application/json", bytes.NewReader(review))
		if err != nil {
			b.Fatal(err)
		}
		var out admissionv1.AdmissionReview
		err = json.NewDecoder(resp.Body).Decode(&out)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		lat = append(lat, time.Since(start))
		if err != nil || resp.StatusCode != http.StatusOK || out.Response == nil || !out.Response.Allowed {
			b.Fatalf("HTTP %d, %v, %+v", resp.StatusCode, err, out.Response)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}
