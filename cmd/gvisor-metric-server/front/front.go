// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package front

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// MaxBytes bounds one scrape as the front passes it on. A full node (110 gVisor pods, every pod's series) answers a
// few MiB (BENCHMARKS.md "Sandbox metrics"); a collector that says more is cut off there, the connection to the
// scraper aborted (a failed scrape, not a truncated one that would read as valid).
const MaxBytes = 32 << 20

// Timeout bounds the collector's answer to one scrape: the collector's own ScrapeBudget (8 s, below Prometheus'
// 10 s scrape timeout) and a little room to write it.
const Timeout = 9 * time.Second

// collectorURL is what the front asks of the collector: its one endpoint, with nothing of the client's request.
const collectorURL = "http://collector/metrics"

// Front serves /metrics by asking the collector on Socket.
type Front struct {
	// Socket is the collector's Unix socket (its --listen).
	Socket string
	Logger *slog.Logger

	client *http.Client
}

// New is a Front asking the collector on socket.
func New(socket string, log *slog.Logger) *Front {
	dialer := &net.Dialer{Timeout: time.Second}
	transport := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, "unix", socket)
		},
		MaxIdleConns:          2,
		IdleConnTimeout:       time.Minute,
		ResponseHeaderTimeout: Timeout,
		DisableCompression:    true,
	}
	return &Front{Socket: socket, Logger: log, client: &http.Client{Transport: transport, Timeout: Timeout}}
}

// ServeHTTP answers GET and HEAD with the collector's scrape; anything else is refused before the collector is asked.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	// Not the request's context: a client that half-closes its side after the request (busybox nc, any HTTP/1.0
	// client that shuts down writing) cancels it at once, though it still reads the answer. A scrape the client
	// left runs to the end of Timeout at most, and the collector runs one scrape at a time.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, collectorURL, nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	resp, err := f.client.Do(req)
	if err != nil {
		f.log().Warn("the collector did not answer", "socket", f.Socket, "error", err)
		http.Error(w, fmt.Sprintf("the collector on %s did not answer", f.Socket), http.StatusBadGateway)
		return
	}
	defer func() { _ = resp.Body.Close() }()
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(resp.StatusCode)
	if r.Method == http.MethodHead {
		return
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, MaxBytes+1))
	switch {
	case n > MaxBytes:
		f.log().Warn("the collector's answer is too large; scrape aborted", "socket", f.Socket, "limit", MaxBytes)
		panic(http.ErrAbortHandler)
	case err != nil && !errors.Is(err, context.Canceled):
		f.log().Warn("passing on the collector's answer", "socket", f.Socket, "error", err)
		panic(http.ErrAbortHandler)
	}
}

func (f *Front) log() *slog.Logger {
	if f.Logger != nil {
		return f.Logger
	}
	return slog.Default()
}
