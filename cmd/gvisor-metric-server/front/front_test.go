// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package front

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector serves handler on a Unix socket, as the collector does, and records what each request carried.
type collector struct {
	socket string
	mu     sync.Mutex
	seen   []*http.Request
	bodies []string
}

func startCollector(t *testing.T, handler http.HandlerFunc) *collector {
	t.Helper()
	c := &collector{socket: filepath.Join(t.TempDir(), "collector.sock")}
	l, err := net.Listen("unix", c.socket)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.seen, c.bodies = append(c.seen, r), append(c.bodies, string(body))
		c.mu.Unlock()
		handler(w, r)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return c
}

const scrape = "# TYPE runsc_sandboxes_running gauge\nrunsc_sandboxes_running 1\n"

// TestFrontPassesTheScrapeOn: a GET of the front is the collector's answer, content type and all.
func TestFrontPassesTheScrapeOn(t *testing.T) {
	c := startCollector(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = io.WriteString(w, scrape)
	})
	rec := httptest.NewRecorder()
	New(c.socket, nil).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != scrape || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Errorf("the front answered %d %q %q, want the collector's scrape", rec.Code, rec.Header(), rec.Body)
	}
}

// TestFrontForwardsNothingOfTheClient: whatever the client sends (path, query, headers, body, method), the collector
// sees one plain GET of /metrics; a method other than GET or HEAD does not reach it at all.
func TestFrontForwardsNothingOfTheClient(t *testing.T) {
	c := startCollector(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, scrape) })
	f := New(c.socket, nil)
	req := httptest.NewRequest(http.MethodGet, "/metrics/../debug/pprof?exec=sh", strings.NewReader("payload"))
	req.Header.Set("Authorization", "Bearer tenant")
	req.Header.Set("X-Sandbox", "other-tenant")
	f.ServeHTTP(httptest.NewRecorder(), req)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, "CONNECT"} {
		rec := httptest.NewRecorder()
		f.ServeHTTP(rec, httptest.NewRequest(m, "/metrics", strings.NewReader("payload")))
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, rec.Code)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.seen) != 1 {
		t.Fatalf("the collector was asked %d times, want once (the GET)", len(c.seen))
	}
	r := c.seen[0]
	if r.Method != http.MethodGet || r.URL.String() != "/metrics" || c.bodies[0] != "" || r.Header.Get("Authorization") != "" || r.Header.Get("X-Sandbox") != "" {
		t.Errorf("the collector saw %s %s %q body %q: want a plain GET /metrics", r.Method, r.URL, r.Header, c.bodies[0])
	}
}

// TestFrontWithoutCollector: a collector that is not there (restarting) is a 502 naming its socket, not a hang.
func TestFrontWithoutCollector(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "collector.sock")
	rec := httptest.NewRecorder()
	New(socket, nil).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusBadGateway || !strings.Contains(rec.Body.String(), socket) {
		t.Errorf("%d %q, want 502 naming %s", rec.Code, rec.Body, socket)
	}
}

// TestFrontCapsTheAnswer: a collector answer beyond MaxBytes aborts the scrape (the scraper's connection is cut, so
// that it cannot read a truncated scrape as a valid one) after at most MaxBytes were passed on.
func TestFrontCapsTheAnswer(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 1<<20)
	c := startCollector(t, func(w http.ResponseWriter, _ *http.Request) {
		for range MaxBytes>>20 + 2 {
			if _, err := w.Write(big); err != nil {
				return
			}
		}
	})
	srv := httptest.NewServer(New(c.socket, nil))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil || n > MaxBytes {
		t.Errorf("read %d bytes, error %v: want the scrape cut off after at most %d bytes", n, err, MaxBytes)
	}
}

// TestFrontAnswersAHalfClosingClient: a client that shuts down its side after sending the request (busybox nc, as
// the VM test's probes) still gets the scrape: the front does not take the half-close for a client that is gone.
func TestFrontAnswersAHalfClosingClient(t *testing.T) {
	c := startCollector(t, func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(200 * time.Millisecond) // a scrape takes its time; the half-close arrives meanwhile
		_, _ = io.WriteString(w, scrape)
	})
	srv := httptest.NewServer(New(c.socket, nil))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	if _, err := io.WriteString(conn, "GET /metrics HTTP/1.0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	answer, err := io.ReadAll(conn)
	if err != nil || !strings.HasPrefix(string(answer), "HTTP/1.0 200 ") || !strings.HasSuffix(string(answer), scrape) {
		t.Errorf("a half-closing client got %q (%v), want the scrape", answer, err)
	}
}
