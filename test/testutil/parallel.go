// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package testutil

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Parallel runs f(0..n-1) on the given number of goroutines, like many shoots' gardenlet flows creating
// resources at once, and fails the test with every error f returned.
func Parallel(t testing.TB, workers, n int, f func(i int) error) {
	t.Helper()
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		errs = make(chan error, n)
	)
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := f(i); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
}
