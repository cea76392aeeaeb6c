// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package testutil

import (
	"testing"
	"time"
)

// DefaultTimeout bounds Eventually: long enough for a real control plane on a busy 2-core CI machine.
const DefaultTimeout = 2 * time.Minute

// pollInterval keeps a real API server's load low while still reacting quickly.
const pollInterval = 200 * time.Millisecond

// Eventually calls check until it returns nil, failing the test with what and the last error after
// DefaultTimeout.
func Eventually(t testing.TB, what string, check func() error) {
	t.Helper()
	EventuallyWithin(t, DefaultTimeout, what, check)
}

// EventuallyWithin is Eventually with its own timeout.
func EventuallyWithin(t testing.TB, timeout time.Duration, what string, check func() error) {
	t.Helper()
	EventuallyEvery(t, timeout, pollInterval, what, check)
}

// EventuallyEvery is EventuallyWithin polling every interval: benchmarks that time how long the control plane takes
// poll faster than tests, so that the poll does not round their figures up.
func EventuallyEvery(t testing.TB, timeout, interval time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting %s for %s: %v", timeout, what, err)
		}
		time.Sleep(interval)
	}
}
