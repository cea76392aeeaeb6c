// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"net/http"

	"golang.org/x/sync/semaphore"
)

// maxInFlightReviewBytes bounds the bytes of the AdmissionReviews the webhook decodes at once. The largest review
// gardener-apiserver sends is an update of a 3 MiB Shoot (its request limit) over a stored one of at most 1.5 MiB,
// and such a review costs the process up to about 63 MiB above its 25 MiB floor (BENCHMARKS.md "At
// gardener-apiserver's request limit"): one of them at a time keeps the webhook under its 128Mi limit, while the
// ordinary reviews of a few KiB pass side by side.
const maxInFlightReviewBytes = 5 << 20

// limitInFlight admits a request to next only while the reviews in flight, weighed by their Content-Length (one
// without a length, or longer than capacity, weighs capacity), stay within capacity. A request that cannot be
// admitted before its context ends (gardener-apiserver's webhook timeout) gets 429, which the API server reports
// to the Shoot's writer like any webhook failure.
func limitInFlight(next http.Handler, capacity int64) http.Handler {
	sem := semaphore.NewWeighted(capacity)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		weight := r.ContentLength
		switch {
		case weight < 0 || weight > capacity:
			weight = capacity
		case weight == 0:
			weight = 1
		}
		if err := sem.Acquire(r.Context(), weight); err != nil {
			http.Error(w, "the gVisor admission is judging other large Shoots: retry", http.StatusTooManyRequests)
			return
		}
		defer sem.Release(weight)
		next.ServeHTTP(w, r)
	})
}
