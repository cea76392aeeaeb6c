// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/admission"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// limitCase is one AdmissionReview of BenchmarkAdmissionAtRequestLimit and what its answer must be.
type limitCase struct {
	name        string
	op          admissionv1.Operation
	obj, old    []byte
	allowed     bool
	wantMessage string // a substring of the refusal
}

// limitCases: a plain Shoot next to the worst ones within gardener-apiserver's request limit (RequestLimit). An
// UPDATE also carries the stored Shoot, which etcd keeps below 1.5 MiB (its default request limit).
func limitCases() []limitCase {
	plain := shootWithWorkers("plain", func(int) string { return `{"configFlags":{"net-raw":"true"}}` }, 1200)
	valid := shootWithWorkers("big", distinctValidConfig, RequestLimit)
	validOld := shootWithWorkers("big", func(i int) string { return fmt.Sprintf(`{"configFlags":{"debug-log":"/var/log/runsc/old%05d"}}`, i) }, 3<<19)
	return []limitCase{
		{"plain create", admissionv1.Create, plain, nil, true, ""},
		{"plain update", admissionv1.Update, plain, shootJSON(`{"configFlags":{"debug":"true"}}`), true, ""},
		{"unknown flags, 16 KiB per worker", admissionv1.Create, shootWithWorkers("big", unknownFlagsConfig, RequestLimit), nil, false, "more errors not listed"},
		{"one invalid value per worker", admissionv1.Create, shootWithWorkers("big", invalidValueConfig, RequestLimit), nil, false, "more errors not listed"},
		{"distinct valid flags per worker", admissionv1.Create, valid, nil, true, ""},
		{"distinct valid flags per worker, update of a 1.5 MiB Shoot", admissionv1.Update, valid, validOld, true, ""},
		{"one 3 MiB providerConfig", admissionv1.Create, shootWithWorkers("big", func(int) string {
			return `{"configFlags":{"debug-log":"/var/log/runsc/` + strings.Repeat("a", RequestLimit-600) + `"}}`
		}, RequestLimit), nil, false, "may not be more than 16384"},
	}
}

// BenchmarkAdmissionAtRequestLimit runs the admission binary as it runs in the garden (its own process, the
// chart's flags, HTTPS) once per case and answers that case's AdmissionReview b.N times. It reports the answer
// time (p50, p99 and max over the b.N requests) and the process's peak resident memory (VmHWM, what the chart's
// 128Mi limit is about), next to the review's size; it asserts the answers, not the figures (BENCHMARKS.md).
// Run: go test ./test/admission -run '^$' -bench AdmissionAtRequestLimit -benchtime 5x
func BenchmarkAdmissionAtRequestLimit(b *testing.B) {
	bin := buildAdmission(b)
	for _, tc := range limitCases() {
		b.Run(strings.ReplaceAll(tc.name, " ", "_"), func(b *testing.B) {
			body := reviewBody(b, tc.op, tc.obj, tc.old)
			p := startAdmissionProcess(b, bin)
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				resp := postReview(b, p.client, p.url+"?timeout=10s", body)
				lat = append(lat, time.Since(start))
				if resp.Allowed != tc.allowed || (!tc.allowed && !strings.Contains(resp.Result.Message, tc.wantMessage)) {
					b.Fatalf("allowed=%v, want %v with %q: %.2000v", resp.Allowed, tc.allowed, tc.wantMessage, resp.Result)
				}
			}
			b.StopTimer()
			reportLatencies(b, lat)
			b.ReportMetric(float64(peakRSS(b, p.cmd.Process.Pid))/(1<<20), "peak-RSS-MiB")
			b.ReportMetric(float64(len(body))/(1<<20), "review-MiB")
		})
	}
}

// buildAdmission builds the admission binary as the image does (static, stripped).
func buildAdmission(b testing.TB) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "gardener-extension-admission-runtime-gvisor")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin,
		"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gardener-extension-admission-runtime-gvisor")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// admissionProcess is a running admission binary.
type admissionProcess struct {
	cmd    *exec.Cmd
	url    string
	client *http.Client
}

// startAdmissionProcess starts bin with the chart's flags on 127.0.0.1 and waits until /readyz answers 200.
func startAdmissionProcess(b testing.TB, bin string) *admissionProcess {
	b.Helper()
	certDir, caPEM := admission.ServingCert(b)
	ports := testutil.FreePorts(b, 2)
	port, health := ports[0], ports[1]
	p := &admissionProcess{url: fmt.Sprintf("https://127.0.0.1:%d/webhooks/validate-shoot", port), client: admission.ClientTrusting(b, caPEM)}
	p.cmd = exec.Command(bin, "--webhook-bind-address=127.0.0.1", "--webhook-port="+strconv.Itoa(port), "--tls-cert-dir="+certDir,
		"--health-bind-address=127.0.0.1:"+strconv.Itoa(health), "--metrics-bind-address=0", "--log-level=info", "--log-format=json")
	p.cmd.Stdout, p.cmd.Stderr = io.Discard, io.Discard
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", health))
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("admission binary not ready within 20s: %v", err)
		}
	}
}

// reviewBody is the AdmissionReview gardener-apiserver sends for op on obj (and old on update).
func reviewBody(b testing.TB, op admissionv1.Operation, obj, old []byte) []byte {
	b.Helper()
	body, err := json.Marshal(newReview(op, "big", obj, old))
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// peakRSS is the process's VmHWM in bytes.
func peakRSS(b testing.TB, pid int) int64 {
	b.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatalf("/proc/%d/status has no VmHWM", pid)
	return 0
}
