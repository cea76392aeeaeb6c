// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"gvisor.dev/gvisor/pkg/prometheus"
	"gvisor.dev/gvisor/runsc/container"
)

// DefaultTimeout bounds one sandbox's answer on a scrape; a sandbox slower than that counts as broken.
const DefaultTimeout = 5 * time.Second

// Server serves the metrics of the sandboxes under Root that requested Address.
type Server struct {
	// Root is runsc's root directory of the sandboxes (the shim's: /run/containerd/runsc/k8s.io on a node).
	Root string
	// Address is the value of runsc's metric-server flag that sandboxes must carry to be served.
	Address string
	// Prefix is prepended to every metric name (runsc's convention: "runsc_").
	Prefix string
	// Timeout bounds each sandbox's answer (DefaultTimeout when zero).
	Timeout time.Duration
	Logger  *slog.Logger

	// mu serialises scrapes: a sandbox's verifier must see its snapshots in order.
	mu      sync.Mutex
	served  map[string]*served // by sandbox ID
	skipped map[string]bool    // sandbox IDs that did not request this server
}

// ServeHTTP implements http.Handler for /metrics.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	if err := s.Write(r.Context(), &b); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// Write writes one scrape in the Prometheus text format: every served sandbox's own metrics and ours, labelled
// with the sandbox, pod and namespace, and the node's totals.
func (s *Server) Write(ctx context.Context, b *bytes.Buffer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		return err
	}
	snapshots := map[*prometheus.Snapshot]prometheus.SnapshotExportOptions{}
	broken := 0
	for id, sb := range s.served {
		sctx, cancel := context.WithTimeout(ctx, s.timeout())
		own, ours, err := sb.export(sctx)
		cancel()
		if err != nil {
			broken++
			s.log().Warn("sandbox metrics not exported", "sandbox", id, "pid", sb.pid(), "error", err)
			continue
		}
		opts := prometheus.SnapshotExportOptions{ExporterPrefix: s.Prefix, ExtraLabels: sb.labels}
		snapshots[own], snapshots[ours] = opts, opts
	}
	node := prometheus.NewSnapshot().Add(
		prometheus.NewIntData(&sandboxesRunning, int64(len(s.served)-broken)),
		prometheus.NewIntData(&sandboxesBroken, int64(broken)),
	)
	snapshots[node] = prometheus.SnapshotExportOptions{ExporterPrefix: s.Prefix}
	if _, err := prometheus.Write(b, prometheus.ExportOptions{}, snapshots); err != nil {
		return fmt.Errorf("writing the metrics of %d sandboxes: %w", len(snapshots)-1, err)
	}
	return nil
}

// refresh brings the served sandboxes in line with the root directory: sandboxes whose state is gone (runsc delete,
// which the shim runs when a pod's sandbox is removed) are dropped, new ones that requested this server are loaded.
// It does not look at the sandbox's host PID (runsc's IsRunning signals it): the server runs in a pod with its own
// PID namespace, where that PID is someone else's or nobody's. A sandbox whose process died while its state stays
// (its shim gone too) does not answer and counts as broken, which is what it is. A sandbox whose state file is locked (being created
// or changed) is tried again on the next scrape.
func (s *Server) refresh() error {
	ids, err := container.ListSandboxes(s.Root)
	if err != nil {
		return fmt.Errorf("listing the sandboxes under %s: %w", s.Root, err)
	}
	if s.served == nil {
		s.served, s.skipped = map[string]*served{}, map[string]bool{}
	}
	present := make(map[string]bool, len(ids))
	for _, fid := range ids {
		present[fid.SandboxID] = true
	}
	for id, sb := range s.served {
		if !present[id] {
			sb.cleanup()
			delete(s.served, id)
		}
	}
	for id := range s.skipped {
		if !present[id] {
			delete(s.skipped, id)
		}
	}
	for id := range present {
		if s.served[id] != nil || s.skipped[id] {
			continue
		}
		sb, err := load(s.Root, s.Address, id)
		switch {
		case errors.Is(err, errNotOurs):
			s.skipped[id] = true
		case errors.Is(err, container.ErrStateFileLocked):
		case err != nil:
			s.log().Warn("sandbox not served", "sandbox", id, "error", err)
		default:
			s.served[id] = sb
		}
	}
	return nil
}

func (s *Server) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

func (s *Server) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}
