// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// laneServer is newLanes' limitInFlight in front of a handler that holds each request whose path is /hold until
// release is closed, and tells entered every request it got.
type laneServer struct {
	h                http.Handler
	entered, release chan struct{}
}

func newLaneServer(largeWait time.Duration) *laneServer {
	s := &laneServer{entered: make(chan struct{}, 64), release: make(chan struct{})}
	l := newLanes()
	l.largeWait = largeWait
	s.h = l.limitInFlight(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.entered <- struct{}{}
		if r.URL.Path == "/hold" {
			<-s.release
		}
		w.WriteHeader(http.StatusOK)
	}))
	return s
}

// serve sends a review of size bytes (a negative size: without a Content-Length) to path and returns the answer.
func (s *laneServer) serve(ctx context.Context, path string, size int) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, path, strings.NewReader(strings.Repeat("x", max(size, 0))))
	if size < 0 {
		req.ContentLength = -1
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// holdLarge starts a large review that holds the large lane until s.release is closed; its answer's code comes on
// the channel returned.
func (s *laneServer) holdLarge(t *testing.T) chan int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- s.serve(context.Background(), "/hold", largeLaneBytes).Code }()
	select {
	case <-s.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the first large review was not admitted")
	}
	return done
}

// TestSmallReviewsNeverWaitBehindLargeOnes: with the large lane held and large reviews queued behind it, small
// reviews are answered at once; the queued large ones are refused with 429 once they waited largeWait, and none of
// them got in.
func TestSmallReviewsNeverWaitBehindLargeOnes(t *testing.T) {
	s := newLaneServer(300 * time.Millisecond)
	first := s.holdLarge(t)
	queued := make(chan *httptest.ResponseRecorder, 3)
	for _, size := range []int{smallReviewBytes + 1, largeLaneBytes, -1} {
		go func() { queued <- s.serve(context.Background(), "/large", size) }()
	}
	for i := 0; i < 20; i++ {
		start := time.Now()
		if rec := s.serve(context.Background(), "/small", 2<<10); rec.Code != http.StatusOK {
			t.Fatalf("a 2 KiB review beside the held large lane: %d", rec.Code)
		}
		<-s.entered
		if d := time.Since(start); d > time.Second {
			t.Errorf("a 2 KiB review took %s beside the held large lane", d)
		}
	}
	for range 3 {
		rec := <-queued
		if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "retry") {
			t.Errorf("a large review queued behind the held one: %d %q, want 429 saying retry", rec.Code, rec.Body.String())
		}
	}
	select {
	case <-s.entered:
		t.Error("a queued large review was admitted while the lane was held")
	default:
	}
	close(s.release)
	if code := <-first; code != http.StatusOK {
		t.Errorf("the held large review: %d", code)
	}
	if rec := s.serve(context.Background(), "/large", largeLaneBytes); rec.Code != http.StatusOK {
		t.Errorf("a large review once the lane is free: %d", rec.Code)
	}
}

// TestGoneCallerReleasesItsShare: a review whose caller gave up while it waited holds nothing afterwards.
func TestGoneCallerReleasesItsShare(t *testing.T) {
	s := newLaneServer(time.Minute)
	first := s.holdLarge(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if rec := s.serve(ctx, "/large", largeLaneBytes); rec.Code != http.StatusTooManyRequests {
		t.Errorf("a large review whose caller gave up: %d, want 429", rec.Code)
	}
	close(s.release)
	<-first
	if rec := s.serve(context.Background(), "/large", largeLaneBytes); rec.Code != http.StatusOK {
		t.Errorf("the lane after the gone caller: %d (its share was kept)", rec.Code)
	}
}

// TestSmallLaneIsBounded: small reviews wait for each other beyond smallLaneBytes, never beyond their context.
func TestSmallLaneIsBounded(t *testing.T) {
	s := newLaneServer(time.Minute)
	held := make(chan int, smallLaneBytes/smallReviewBytes)
	for range cap(held) {
		go func() { held <- s.serve(context.Background(), "/hold", smallReviewBytes).Code }()
		<-s.entered
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if rec := s.serve(ctx, "/small", 2<<10); rec.Code != http.StatusTooManyRequests {
		t.Errorf("a small review with the small lane full and its caller gone: %d, want 429", rec.Code)
	}
	close(s.release)
	for range cap(held) {
		if code := <-held; code != http.StatusOK {
			t.Errorf("a held small review: %d", code)
		}
	}
}
