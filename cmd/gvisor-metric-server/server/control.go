// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
	"gvisor.dev/gvisor/pkg/prometheus"
	"gvisor.dev/gvisor/pkg/sentry/control"
	"gvisor.dev/gvisor/runsc/boot"
)

// MaxAnswerBytes bounds one control answer of one sandbox as read from its socket. The largest honest answer is a
// metrics export with every counter of the sandbox's registration non-zero: under half of this for the pinned gVisor
// (TestHonestAnswerFitsTheCap computes it from gVisor's own registration). A sandbox that says more is cut off there
// and counts broken, so a compromised sentry costs this server at most this much per scrape.
const MaxAnswerBytes = 2 << 20

// MaxAnswersInFlightBytes bounds what the answers of all sandboxes hold at once, read but not yet decoded: with the
// decoded snapshots (about as large again) and the server's own use it stays under the 128Mi the charts and the
// OperatingSystemConfig unit give the server, however many sandboxes answer with MaxAnswerBytes at once. Honest
// answers are a few KiB (only non-zero counters are exported), so a full node's (110 pods) stay far below it; an
// answer that finds the budget spent fails at once and its sandbox counts broken for this scrape.
const MaxAnswersInFlightBytes = 32 << 20

var (
	errAnswerTooLarge = fmt.Errorf("the answer is larger than %d bytes", MaxAnswerBytes)
	errBudgetSpent    = fmt.Errorf("the answers in flight already hold %d bytes", MaxAnswersInFlightBytes)
)

// answerBudget counts the bytes of sandbox answers read and not yet released, against limit.
type answerBudget struct {
	limit int64
	used  atomic.Int64
}

// newAnswerBudget is the node's budget, MaxAnswersInFlightBytes.
func newAnswerBudget() *answerBudget { return &answerBudget{limit: MaxAnswersInFlightBytes} }

// controlSocket makes the metric server's three control calls to one sandbox the way runsc's own client does (gVisor's
// urpc over the sandbox's control socket: one JSON call, one JSON answer, a connection per call), with what runsc's
// client lacks for a peer it does not trust: the whole call has a deadline and the answer is read with a byte cap and
// against the node's budget. It is the sandboxCalls of every served sandbox.
type controlSocket struct {
	path    func() string // the sandbox's control socket (runsc's Sandbox.GetControlSocketPath)
	timeout time.Duration
	budget  *answerBudget
}

// ExportMetrics asks for the sandbox's metrics, as runsc's Sandbox.ExportMetrics does (without the time-saved
// figures of restored sandboxes: nodes do not restore sandboxes), and checks that the options were kept.
func (c *controlSocket) ExportMetrics(opts control.MetricsExportOpts) (*prometheus.Snapshot, error) {
	var data control.MetricsExportData
	if err := c.call(boot.MetricsExport, &opts, &data); err != nil {
		return nil, err
	}
	if data.Snapshot == nil {
		return nil, errors.New("the metrics answer holds no snapshot")
	}
	if err := opts.Verify(&data); err != nil {
		return nil, err
	}
	return data.Snapshot, nil
}

// Usage asks for the sandbox's memory accounting (runsc's Sandbox.Usage).
func (c *controlSocket) Usage(full bool) (control.MemoryUsage, error) {
	var m control.MemoryUsage
	if err := c.call(boot.UsageCollect, &control.MemoryUsageOpts{Full: full}, &m); err != nil {
		return control.MemoryUsage{}, fmt.Errorf("collecting usage: %w", err)
	}
	return m, nil
}

// Event asks for container cid's events (runsc's Sandbox.Event).
func (c *controlSocket) Event(cid string) (*boot.EventOut, error) {
	var e boot.EventOut
	if err := c.call(boot.ContMgrEvent, &cid, &e); err != nil {
		return nil, fmt.Errorf("retrieving event data from sandbox: %w", err)
	}
	return &e, nil
}

// urpcCall and urpcResult are gVisor's urpc messages (pkg/urpc's clientCall and callResult).
type urpcCall struct {
	Method string `json:"method"`
	Arg    any    `json:"arg"`
}

type urpcResult struct {
	Success bool   `json:"success"`
	Err     string `json:"err"`
	Result  any    `json:"result"`
}

// call sends method(arg) and decodes the answer into result, within c.timeout and MaxAnswerBytes.
func (c *controlSocket) call(method string, arg, result any) error {
	path := c.path()
	if path == "" {
		return errors.New("the sandbox has no control socket")
	}
	deadline := time.Now().Add(c.timeout)
	conn, err := dialControl(path, deadline)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetDeadline(deadline); err != nil {
		return err
	}
	call, err := json.Marshal(urpcCall{Method: method, Arg: arg})
	if err != nil {
		return fmt.Errorf("encoding the call %s: %w", method, err)
	}
	if _, err := conn.Write(call); err != nil {
		return fmt.Errorf("calling %s: %w", method, err)
	}
	r := &cappedReader{r: conn, budget: c.budget}
	defer r.release()
	d := json.NewDecoder(r)
	d.UseNumber() // as urpc's own decoder: integers stay exact
	answer := urpcResult{Result: result}
	if err := d.Decode(&answer); err != nil {
		return fmt.Errorf("reading the answer to %s: %w", method, err)
	}
	if !answer.Success {
		return fmt.Errorf("%s failed in the sandbox: %s", method, answer.Err)
	}
	return nil
}

// dialControl connects to a control socket as runsc does (unet.Connect, a stream socket), through /proc/self/fd for
// a path too long for a socket address.
func dialControl(path string, deadline time.Time) (net.Conn, error) {
	addr := path
	if len(path) >= len(unix.RawSockaddrUnix{}.Path) {
		fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("opening the control socket %s: %w", path, err)
		}
		defer unix.Close(fd)
		addr = filepath.Join("/proc/self/fd", strconv.Itoa(fd))
	}
	conn, err := (&net.Dialer{Deadline: deadline}).Dial("unix", addr)
	if err != nil {
		return nil, fmt.Errorf("connecting to the control socket %s: %w", path, err)
	}
	return conn, nil
}

// cappedReader reads one answer: at most MaxAnswerBytes, each byte drawn from the node's budget until release.
type cappedReader struct {
	r      io.Reader
	budget *answerBudget
	n      int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.n >= MaxAnswerBytes {
		return 0, errAnswerTooLarge
	}
	if rest := MaxAnswerBytes - c.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.budget != nil && c.budget.used.Add(int64(n)) > c.budget.limit {
		return n, errBudgetSpent
	}
	return n, err
}

// release gives the answer's bytes back to the budget.
func (c *cappedReader) release() {
	if c.budget != nil {
		c.budget.used.Add(-c.n)
	}
}
