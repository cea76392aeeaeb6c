// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"time"
)

// qmpDialTimeout bounds connecting to QEMU's own QMP socket and its greeting: QEMU creates the socket before the
// guest runs, so only a QEMU that is gone leaves it unanswered.
const qmpDialTimeout = 10 * time.Second

// qmpClient speaks QEMU's machine protocol (QMP) over the node's monitor socket: one command at a time, events
// skipped.
type qmpClient struct {
	conn net.Conn
	dec  *json.Decoder
}

// qmpReply is a QMP message: a command's return or error, or an event (ignored).
type qmpReply struct {
	Return json.RawMessage `json:"return"`
	Error  *struct {
		Class string `json:"class"`
		Desc  string `json:"desc"`
	} `json:"error"`
	Event string `json:"event"`
}

// dialQMP connects to QEMU's QMP socket at path and leaves the greeting's capability negotiation done.
func dialQMP(ctx context.Context, path string) (*qmpClient, error) {
	dctx, cancel := context.WithTimeout(ctx, qmpDialTimeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(dctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("QEMU's QMP socket %s: %w", path, err)
	}
	q := &qmpClient{conn: conn, dec: json.NewDecoder(conn)}
	_ = conn.SetDeadline(time.Now().Add(qmpDialTimeout))
	var greeting map[string]json.RawMessage
	if err := q.dec.Decode(&greeting); err != nil {
		conn.Close()
		return nil, fmt.Errorf("QEMU's QMP greeting: %w", err)
	}
	_ = conn.SetDeadline(time.Time{})
	if err := q.execute("qmp_capabilities", nil, nil); err != nil {
		conn.Close()
		return nil, err
	}
	return q, nil
}

// execute runs one QMP command with arguments args (nil: none) and decodes its return into out (nil: ignored).
func (q *qmpClient) execute(command string, args, out any) error {
	msg := map[string]any{"execute": command}
	if args != nil {
		msg["arguments"] = args
	}
	if err := json.NewEncoder(q.conn).Encode(msg); err != nil {
		return fmt.Errorf("QMP %s: %w", command, err)
	}
	for {
		var r qmpReply
		if err := q.dec.Decode(&r); err != nil {
			return fmt.Errorf("QMP %s: reading the reply: %w", command, err)
		}
		switch {
		case r.Event != "":
			continue
		case r.Error != nil:
			return fmt.Errorf("QMP %s: %s: %s", command, r.Error.Class, r.Error.Desc)
		case out != nil:
			return json.Unmarshal(r.Return, out)
		default:
			return nil
		}
	}
}

func (q *qmpClient) close() { q.conn.Close() }
