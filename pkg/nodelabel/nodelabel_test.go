// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodelabel_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodelabel"
)

// TestNoNodeNameMessage: the error for a missing NODE_NAME says how to set it.
func TestNoNodeNameMessage(t *testing.T) {
	if msg := nodelabel.ErrNoNodeName.Error(); !strings.Contains(msg, "NODE_NAME is not set") || !strings.Contains(msg, "fieldPath: spec.nodeName") {
		t.Errorf("ErrNoNodeName = %q, want one naming the variable and the downward API field", msg)
	}
}

// TestEmptyNodeName: no request is sent without a node name (the nil client would panic if one were).
func TestEmptyNodeName(t *testing.T) {
	for name, f := range map[string]func() error{
		"Set":    func() error { return nodelabel.Set(context.Background(), nil, "") },
		"Remove": func() error { return nodelabel.Remove(context.Background(), nil, "") },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), nodelabel.NodeNameEnv) {
			t.Errorf("%s(\"\") error = %v, want one naming %s", name, err, nodelabel.NodeNameEnv)
		}
	}
}

// TestRetriesUntilContextEnds: an unreachable API server (connection refused) is retried, not reported at once,
// and the error names the last failure.
func TestRetriesUntilContextEnds(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there any more: every attempt is refused
	nodes, err := nodelabel.NewClient(&rest.Config{Host: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	err = nodelabel.Set(ctx, nodes, "node-a")
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "gave up after retrying") {
		t.Fatalf("Set() error = %v, want it to give up after retrying, naming the refused connection", err)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("Set gave up after %v, want it to retry until the context ends (2s)", d)
	}
}
