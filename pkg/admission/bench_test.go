// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"context"
	"slices"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	gvisoradmission "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission"
)

// BenchmarkHandleUpdate measures one admission request in-process (decode both Shoots from the AdmissionRequest,
// compare, validate, build the response) for an update that changes the gVisor worker's flags, the case that
// does the most work. It reports p50 and p99 over the b.N requests (BENCHMARKS.md); it asserts no timing.
// Run: go test ./pkg/admission -run '^$' -bench . -benchtime 5000x
func BenchmarkHandleUpdate(b *testing.B) {
	v, err := gvisoradmission.NewShootValidator()
	if err != nil {
		b.Fatal(err)
	}
	hook := v.Webhook()
	old := shoot(b, plainWorker("a")+plainWorker("b")+gvisorWorker("gvisor", "configFlags:\n  net-raw: \"true\"\n"))
	cur := shoot(b, plainWorker("a")+plainWorker("b")+gvisorWorker("gvisor", "apiVersion: gvisor.runtime.extensions.config.gardener.cloud/v1alpha1\nkind: GVisorConfiguration\nconfigFlags:\n  net-raw: \"true\"\n  debug: \"true\"\n  platform: systrap\n"))
	req := request(b, admissionv1.Update, cur, old)
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		resp := hook.Handle(ctx, req)
		lat = append(lat, time.Since(start))
		if !resp.Allowed {
			b.Fatalf("refused: %v", resp.Result)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}
