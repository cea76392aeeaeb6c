// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"context"
	"net/http"
	"time"

	"golang.org/x/sync/semaphore"
)

// Reviews are admitted in two lanes that never wait for each other, weighed by their Content-Length: a Shoot of
// any project may be large, and a flood of large updates (any project member who may update a gVisor Shoot can
// send one) must not starve the small reviews of every other Shoot, gardenlet's own writes among them.
const (
	// smallReviewBytes is the largest review of the small lane. An ordinary Shoot's review is a few KiB to a few
	// dozen KiB (hundreds of workers included); only Shoots built to be large go beyond it.
	smallReviewBytes = 256 << 10
	// smallLaneBytes bounds the small reviews decoded at once. A review costs the process up to about 15 times its
	// size while it is decoded (BENCHMARKS.md "At gardener-apiserver's request limit"), so this lane adds at most
	// about 15 MiB to the large lane's peak.
	smallLaneBytes = 1 << 20
	// largeLaneBytes bounds the large reviews decoded at once. The largest review gardener-apiserver sends is an
	// update of a 3 MiB Shoot (its request limit) over a stored one of at most 1.5 MiB, and such a review costs up
	// to about 63 MiB above the process's 25 MiB floor: one of them at a time keeps the webhook, with the small
	// lane full, under its 128Mi limit.
	largeLaneBytes = 5 << 20
	// largeReviewWait bounds how long a large review waits for the large lane before it is refused with 429. The
	// largest review takes about 2.4 s to judge and gardener-apiserver gives the webhook 10 s, so a large review is
	// answered, with a verdict or a 429, well within that: a queue of large reviews never turns into timeouts.
	largeReviewWait = 5 * time.Second
)

// lanes admits each request to next through the lane its size puts it in; a request without a Content-Length is
// large. A small review waits only for other small ones, until its context ends (gardener-apiserver's timeout). A
// large review waits at most largeReviewWait (or until its context ends) for the large lane, then gets 429, which
// gardener-apiserver reports to the Shoot's writer like any webhook failure: retry.
type lanes struct {
	small, large *semaphore.Weighted
	// largeWait is largeReviewWait (tests shorten it).
	largeWait time.Duration
}

// newLanes returns the webhook's lanes.
func newLanes() lanes {
	return lanes{small: semaphore.NewWeighted(smallLaneBytes), large: semaphore.NewWeighted(largeLaneBytes), largeWait: largeReviewWait}
}

// limitInFlight puts next behind lanes l.
func (l lanes) limitInFlight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, ok := l.admit(r)
		if !ok {
			http.Error(w, "the gVisor admission is judging other large Shoots: retry", http.StatusTooManyRequests)
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}

// admit waits for r's share of its lane; ok is false when the wait ended first.
func (l lanes) admit(r *http.Request) (release func(), ok bool) {
	size := r.ContentLength
	if size >= 0 && size <= smallReviewBytes {
		weight := max(size, 1)
		if l.small.Acquire(r.Context(), weight) != nil {
			return nil, false
		}
		return func() { l.small.Release(weight) }, true
	}
	weight := min(size, largeLaneBytes)
	if size < 0 {
		weight = largeLaneBytes
	}
	ctx, cancel := context.WithTimeout(r.Context(), l.largeWait)
	defer cancel()
	if l.large.Acquire(ctx, weight) != nil {
		return nil, false
	}
	return func() { l.large.Release(weight) }, true
}
