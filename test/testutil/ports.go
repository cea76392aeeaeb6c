// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package testutil

import (
	"errors"
	"fmt"
	"net"
	"testing"
)

// FreeLoopbackPorts returns n distinct TCP ports of 127.0.0.1 that were free a moment ago, for a process the test
// starts with them as flags (loopback only, never another address). Every port's listener stays open until all n
// are picked: closed one by one, the kernel may hand the same port out twice (a controller's health and metrics
// servers then collide: "bind: address already in use").
func FreeLoopbackPorts(n int) (_ []int, err error) {
	ports := make([]int, 0, n)
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			err = errors.Join(err, l.Close())
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("picking a free port of 127.0.0.1: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// FreePorts is FreeLoopbackPorts for a test: n distinct ports, the test failing at once if none are free.
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	ports, err := FreeLoopbackPorts(n)
	Must(t, err)
	return ports
}

// FreePort is one port of FreePorts: free a moment ago, so a test binds it right after.
func FreePort(t testing.TB) int {
	t.Helper()
	return FreePorts(t, 1)[0]
}
