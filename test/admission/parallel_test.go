// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package admission_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission/admissiontest"
	admissionv1 "k8s.io/api/admission/v1"
)

// webhookMemoryLimit is the runtime chart's memory limit of the admission container.
const webhookMemoryLimit = 128 << 20

// parallelWorstUpdates is how many of the worst updates TestParallelWorstUpdatesStayUnderTheLimit sends at once:
// more than gardener-apiserver's client keeps in flight to one webhook replica under an attack of parallel PATCHes.
const parallelWorstUpdates = 8

// TestParallelWorstUpdatesStayUnderTheLimit runs the admission binary as it runs in the garden and sends it
// parallelWorstUpdates of the worst updates at once: a Shoot at gardener-apiserver's request limit whose one
// providerConfig is almost all of it, over a stored Shoot of 1.5 MiB with another such providerConfig. Every one is
// answered (refused: the providerConfig is over its limit, or asked to retry while the others are judged), and the
// process's peak memory stays under the chart's limit.
func TestParallelWorstUpdatesStayUnderTheLimit(t *testing.T) {
	newShoot := shootWithWorkers("big", func(int) string { return string(admissiontest.CostlyProviderConfig(RequestLimit-1024, "new")) }, RequestLimit)
	oldShoot := shootWithWorkers("big", func(int) string { return string(admissiontest.CostlyProviderConfig(3<<19-1024, "old")) }, 3<<19)
	body := reviewBody(t, admissionv1.Update, newShoot, oldShoot)
	p := startAdmissionProcess(t, buildAdmission(t))
	var wg sync.WaitGroup
	answers := make(chan string, parallelWorstUpdates)
	for range parallelWorstUpdates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := p.client.Post(p.url+"?timeout=10s", "application/json", bytes.NewReader(body))
			if err != nil {
				answers <- "error: " + err.Error()
				return
			}
			var buf bytes.Buffer
			_, _ = buf.ReadFrom(resp.Body)
			_ = resp.Body.Close()
			answers <- resp.Status + " " + buf.String()
		}()
	}
	wg.Wait()
	close(answers)
	for a := range answers {
		if !strings.Contains(a, "may not be more than 16384") && !strings.HasPrefix(a, "429") {
			t.Errorf("answer %.300s, want the providerConfig refused as too long, or 429 while the others are judged", a)
		}
	}
	peak := peakRSS(t, p.cmd.Process.Pid)
	t.Logf("%d parallel updates of %d KiB: peak RSS %d MiB", parallelWorstUpdates, len(body)>>10, peak>>20)
	if peak >= webhookMemoryLimit {
		t.Errorf("peak RSS %d MiB, over the chart's %d MiB limit", peak>>20, webhookMemoryLimit>>20)
	}
}
