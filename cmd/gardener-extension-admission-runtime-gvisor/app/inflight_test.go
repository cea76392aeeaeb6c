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

// TestLimitInFlight: a large review waits while another large one is judged and gives up with its context (429);
// small reviews pass beside a large one.
func TestLimitInFlight(t *testing.T) {
	entered, release := make(chan string, 4), make(chan struct{})
	h := limitInFlight(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- r.URL.Path
		if r.URL.Path == "/large" {
			<-release
		}
		w.WriteHeader(http.StatusOK)
	}), 10)
	serve := func(ctx context.Context, path string, size int) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodPost, path, strings.NewReader(strings.Repeat("x", size))))
		return rec
	}
	first := make(chan int, 1)
	go func() { first <- serve(context.Background(), "/large", 8).Code }()
	if got := <-entered; got != "/large" {
		t.Fatalf("entered %s", got)
	}
	if rec := serve(context.Background(), "/small", 2); rec.Code != http.StatusOK {
		t.Errorf("a small review beside a large one: %d", rec.Code)
	}
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if rec := serve(ctx, "/large-too", 8); rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "retry") {
		t.Errorf("a second large review while the first is judged: %d %q, want 429", rec.Code, rec.Body.String())
	}
	close(release)
	if code := <-first; code != http.StatusOK {
		t.Errorf("the first large review: %d", code)
	}
	if rec := serve(context.Background(), "/large", 8); rec.Code != http.StatusOK {
		t.Errorf("a large review after the first: %d", rec.Code)
	}
}
