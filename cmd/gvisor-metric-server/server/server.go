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

// ScrapeBudget bounds a whole scrape, whatever the sandboxes do: below Prometheus' default scrape timeout (10 s, which
// the shoot Prometheus' scrape configs of the metric server keep), so that a scrape always answers, with the
// sandboxes that did not answer in time counted broken, instead of being cut off with every sandbox's metrics lost.
const ScrapeBudget = 8 * time.Second

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
	// PerPod serves each sandbox's series, labelled with its pod and namespace. Off, the server says only what the
	// node's sandboxes add up to (nodeMemory, nodeSandboxes) and no pod, namespace or sandbox is named: for a server
	// every pod of the shoot can reach (the OperatingSystemConfig mode's, on the node's port).
	PerPod bool
	Logger *slog.Logger

	// lock serialises scrapes (a sandbox's verifier must see its snapshots in order); a channel, so that a scrape
	// waiting for it gives up with its request.
	lock     chan struct{}
	lockOnce sync.Once
	budget   *answerBudget      // what the sandboxes' answers in flight may hold (MaxAnswersInFlightBytes)
	served   map[string]*served // by sandbox ID
	skipped  map[string]bool    // sandbox IDs that did not request this server
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
// with the sandbox, pod and namespace, and the node's totals. The sandboxes are asked in parallel, each within its
// own timeout and all within ScrapeBudget and ctx: one hung or slow sandbox costs only its own series. A scrape
// whose request is gone before it began asks no sandbox.
func (s *Server) Write(ctx context.Context, b *bytes.Buffer) error {
	if err := s.acquire(ctx); err != nil {
		return err
	}
	defer s.release()
	if err := s.refresh(); err != nil {
		return err
	}
	return s.write(ctx, b)
}

// write asks the served sandboxes and writes what they answered (Write, with the scrape lock held).
func (s *Server) write(ctx context.Context, b *bytes.Buffer) error {
	ctx, cancel := context.WithTimeout(ctx, ScrapeBudget)
	defer cancel()
	snapshots := map[*prometheus.Snapshot]prometheus.SnapshotExportOptions{}
	broken, memory, releases := 0, int64(0), map[string]map[string]string{}
	count := map[string]int64{}
	for _, r := range s.exportAll(ctx) {
		if r.err != nil {
			broken++
			s.log().Warn("sandbox metrics not exported", "sandbox", r.sb.id, "pid", r.sb.pidString(), "error", r.err)
			continue
		}
		if !s.PerPod {
			memory += memoryOf(r.ours)
			key := fmt.Sprint(r.sb.metadata)
			releases[key], count[key] = r.sb.metadata, count[key]+1
			continue
		}
		opts := prometheus.SnapshotExportOptions{ExporterPrefix: s.Prefix, ExtraLabels: r.sb.labels}
		snapshots[r.own], snapshots[r.ours] = opts, opts
	}
	node := prometheus.NewSnapshot().Add(
		prometheus.NewIntData(&sandboxesRunning, int64(len(s.served)-broken)),
		prometheus.NewIntData(&sandboxesBroken, int64(broken)),
	)
	if !s.PerPod {
		node.Add(prometheus.NewIntData(&nodeMemory, memory))
		for key, labels := range releases {
			node.Add(prometheus.LabeledIntData(&nodeSandboxes, labels, count[key]))
		}
	}
	snapshots[node] = prometheus.SnapshotExportOptions{ExporterPrefix: s.Prefix}
	if _, err := prometheus.Write(b, prometheus.ExportOptions{}, snapshots); err != nil {
		return fmt.Errorf("writing the metrics of %d sandboxes: %w", len(snapshots)-1, err)
	}
	return nil
}

// memoryOf is the sandboxMemory value in a sandbox's snapshot of ours (0 if it has none).
func memoryOf(ours *prometheus.Snapshot) int64 {
	for _, d := range ours.Data {
		if d.Metric == &sandboxMemory && d.Number != nil {
			return d.Number.Int
		}
	}
	return 0
}

// exported is one sandbox's answer on a scrape.
type exported struct {
	sb        *served
	own, ours *prometheus.Snapshot
	err       error
}

// exportAll asks every served sandbox at once, each bounded by the server's timeout within ctx, and returns when
// all answered or gave up.
func (s *Server) exportAll(ctx context.Context) []exported {
	out := make([]exported, 0, len(s.served))
	ch := make(chan exported, len(s.served))
	for _, sb := range s.served {
		go func() {
			sctx, cancel := context.WithTimeout(ctx, s.timeout())
			defer cancel()
			own, ours, err := sb.export(sctx)
			ch <- exported{sb: sb, own: own, ours: ours, err: err}
		}()
	}
	for range s.served {
		out = append(out, <-ch)
	}
	return out
}

// acquire takes the scrape lock, or gives up with ctx: a request that is gone starts no work.
func (s *Server) acquire(ctx context.Context) error {
	s.lockOnce.Do(func() { s.lock, s.budget = make(chan struct{}, 1), newAnswerBudget() })
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("scrape abandoned before it began: %w", err)
	}
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("scrape abandoned while another ran: %w", ctx.Err())
	}
	if err := ctx.Err(); err != nil {
		s.release()
		return fmt.Errorf("scrape abandoned before it began: %w", err)
	}
	return nil
}

func (s *Server) release() { <-s.lock }

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
		sb, err := load(s.Root, s.Address, id, s.timeout(), s.budget)
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
