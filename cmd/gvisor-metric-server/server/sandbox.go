// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"gvisor.dev/gvisor/pkg/prometheus"
	"gvisor.dev/gvisor/pkg/sentry/control"
	"gvisor.dev/gvisor/runsc/boot"
	"gvisor.dev/gvisor/runsc/container"
	"gvisor.dev/gvisor/runsc/metricserver/containermetrics"
)

type memoryUsage = control.MemoryUsage

// errNotOurs means the sandbox did not ask for this server (no metric-server flag, or another address): it is
// skipped without counting as broken.
var errNotOurs = errors.New("the sandbox did not request this metric server")

// CRI annotations on a container's OCI spec (containerd sets them; the shim passes them to runsc).
const (
	annotationContainerName = "io.kubernetes.cri.container-name"
	annotationContainerType = "io.kubernetes.cri.container-type"
)

// sandboxCalls are the control calls a scrape makes to a sandbox (controlSocket makes them): the seam through which
// tests stand in hung, slow, lying and vanishing sandboxes.
type sandboxCalls interface {
	ExportMetrics(opts control.MetricsExportOpts) (*prometheus.Snapshot, error)
	Usage(full bool) (control.MemoryUsage, error)
	Event(cid string) (*boot.EventOut, error)
}

// served is one sandbox the server exports. The verifier keeps state across scrapes (counters may only grow), so
// a served sandbox lives as long as the sandbox does.
type served struct {
	id         string
	pid        func() int
	calls      sandboxCalls
	labels     map[string]string
	created    time.Time
	metadata   map[string]string // sandboxMetadata's labels
	containers map[string]string // container ID -> container name ("POD" for the pause container), from runsc's state
	// reloadNames reads the containers' names from runsc's state again (names); nil or an error keeps the old ones.
	reloadNames func() (map[string]string, error)
	// verify checks the sandbox's own metrics against the registration it declared at creation.
	verify  func(*prometheus.Snapshot) error
	cleanup func()
	// busy is set while a query runs: a query that outlived its scrape's timeout (a hung sandbox) still owns the
	// verifier, so the next scrape reports the sandbox broken instead of querying it a second time.
	busy atomic.Bool
}

// load reads sandbox id's state under root and builds its verifier from the metric registration the sandbox
// declared at creation; its control calls go through a controlSocket with timeout and budget. It returns errNotOurs
// for a sandbox that did not request address.
func load(root, address, id string, timeout time.Duration, budget *answerBudget) (*served, error) {
	conts, err := container.LoadSandbox(root, id, container.LoadOpts{TryLock: container.TryAcquire})
	if err != nil {
		return nil, fmt.Errorf("loading the state of sandbox %s: %w", id, err)
	}
	var rootCont *container.Container
	for _, c := range conts {
		if c.IsSandboxRoot() {
			rootCont = c
		}
	}
	if rootCont == nil {
		return nil, fmt.Errorf("sandbox %s has no root container", id)
	}
	if want := strings.ReplaceAll(rootCont.Sandbox.MetricServerAddress, "%RUNTIME_ROOT%", root); want != address {
		return nil, errNotOurs
	}
	labels, err := containermetrics.SandboxPrometheusLabels(rootCont)
	if err != nil {
		return nil, fmt.Errorf("labels of sandbox %s: %w", id, err)
	}
	if err := checkLabels(labels); err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", id, err)
	}
	if err := checkLabels(metadata(rootCont.Sandbox.MetricMetadata)); err != nil {
		return nil, fmt.Errorf("sandbox %s's recorded metadata: %w", id, err)
	}
	reg, err := rootCont.Sandbox.GetRegisteredMetrics()
	if err != nil {
		return nil, fmt.Errorf("metric registration of sandbox %s: %w", id, err)
	}
	v, cleanup, err := prometheus.NewVerifier(reg)
	if err != nil {
		return nil, fmt.Errorf("verifier for sandbox %s: %w", id, err)
	}
	sb := rootCont.Sandbox
	reload := func() (map[string]string, error) {
		conts, err := container.LoadSandbox(root, id, container.LoadOpts{TryLock: container.TryAcquire})
		return names(conts), err
	}
	calls := &controlSocket{path: sb.GetControlSocketPath, timeout: timeout, budget: budget}
	return &served{id: id, pid: func() int { return sb.Pid.Load() }, calls: calls, labels: labels, created: rootCont.CreatedAt,
		metadata: metadata(sb.MetricMetadata), containers: names(conts), reloadNames: reload, verify: v.Verify, cleanup: cleanup}, nil
}

// names maps the containers' IDs to their Kubernetes names.
func names(conts []*container.Container) map[string]string {
	m := make(map[string]string, len(conts))
	for _, c := range conts {
		m[c.ID] = containerName(c)
	}
	return m
}

// refreshNames reloads the container names: a pod's app containers join its sandbox after the pause container,
// usually after the server first loaded the sandbox. Best-effort: a locked state file keeps the old names.
func (s *served) refreshNames() {
	if s.reloadNames == nil {
		return
	}
	if m, err := s.reloadNames(); err == nil {
		s.containers = m
	}
}

// containerName is the Kubernetes container name of c, "POD" for the pod's pause container (as cAdvisor names
// it), else its ID.
func containerName(c *container.Container) string {
	if c.Spec == nil {
		return c.ID
	}
	if c.Spec.Annotations[annotationContainerType] == "sandbox" {
		return "POD"
	}
	if n := c.Spec.Annotations[annotationContainerName]; n != "" {
		return n
	}
	return c.ID
}

// export asks the sandbox for its metrics, memory and CPU, bounded by ctx (a hung sandbox must not hang the
// scrape: the call goes on in the background and its answer is dropped).
func (s *served) export(ctx context.Context) (*prometheus.Snapshot, *prometheus.Snapshot, error) {
	type result struct {
		own, ours *prometheus.Snapshot
		err       error
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("sandbox %s not asked: %w", s.id, err) // the scrape is over: no query, no busy mark
	}
	if !s.busy.CompareAndSwap(false, true) {
		return nil, nil, fmt.Errorf("sandbox %s has not answered an earlier scrape yet", s.id)
	}
	ch := make(chan result, 1)
	go func() {
		defer s.busy.Store(false)
		own, ours, err := s.query()
		ch <- result{own, ours, err}
	}()
	select {
	case <-ctx.Done():
		return nil, nil, fmt.Errorf("sandbox %s did not answer: %w", s.id, ctx.Err())
	case r := <-ch:
		return r.own, r.ours, r.err
	}
}

// query makes the control calls: the sandbox's own metrics (verified), its memory accounting (without the full
// page scan, which is what runsc events does too) and the containers' CPU time. What the sandbox answers is not
// trusted (a compromised sentry is what gVisor guards against): CPU is reported only for containers runsc's state on
// the node knows, at most maxContainers of them, labelled with names from that state.
func (s *served) query() (*prometheus.Snapshot, *prometheus.Snapshot, error) {
	own, err := s.calls.ExportMetrics(control.MetricsExportOpts{})
	if err != nil {
		return nil, nil, fmt.Errorf("exporting the metrics of sandbox %s: %w", s.id, err)
	}
	if err := s.verify(own); err != nil {
		return nil, nil, fmt.Errorf("verifying the metrics of sandbox %s: %w", s.id, err)
	}
	mem, err := s.calls.Usage(false)
	if err != nil {
		return nil, nil, fmt.Errorf("memory usage of sandbox %s: %w", s.id, err)
	}
	ev, err := s.calls.Event(s.id)
	if err != nil {
		return nil, nil, fmt.Errorf("events of sandbox %s: %w", s.id, err)
	}
	if ev == nil {
		return nil, nil, fmt.Errorf("events of sandbox %s: no answer", s.id)
	}
	ours := prometheus.NewSnapshot().Add(
		prometheus.NewIntData(&sandboxRunning, 1),
		prometheus.NewFloatData(&sandboxCreated, float64(s.created.UnixNano())/1e9),
		prometheus.NewIntData(&sandboxMemory, int64(mem.Total)),
		prometheus.LabeledIntData(&sandboxMetadata, s.metadata, 1),
	)
	for kind, v := range memoryKinds(mem) {
		ours.Add(prometheus.LabeledIntData(&sandboxMemoryKind, map[string]string{"kind": kind}, int64(v)))
	}
	for id, ns := range s.knownUsage(ev.ContainerUsage) {
		ours.Add(prometheus.LabeledFloatData(&containerCPU, map[string]string{"container": s.containers[id], "container_id": id}, float64(ns)/1e9))
	}
	return own, ours, nil
}

// maxContainers bounds the CPU series of one sandbox: a pod has a handful of containers, and a sentry that claims
// thousands must not multiply the node's series.
const maxContainers = 64

// knownUsage is the CPU usage of the containers runsc's state knows (names reloaded once when the sandbox names one
// it does not: an app container started after the server loaded the sandbox), in container ID order, at most
// maxContainers. IDs the state does not know are dropped: their keys came from the sandbox alone.
func (s *served) knownUsage(usage map[string]uint64) map[string]uint64 {
	for id := range usage {
		if _, ok := s.containers[id]; !ok {
			s.refreshNames()
			break
		}
	}
	out := map[string]uint64{}
	for _, id := range slices.Sorted(maps.Keys(usage)) {
		if name, known := s.containers[id]; known && safeLabelValue(id) && safeLabelValue(name) && len(out) < maxContainers {
			out[id] = usage[id]
		}
	}
	return out
}

// pidString is the sandbox process's PID, for logs.
func (s *served) pidString() string {
	if s.pid == nil {
		return "?"
	}
	return strconv.Itoa(s.pid())
}
