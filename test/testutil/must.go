// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package testutil

import (
	"net"
	"testing"
)

// Must fails the test at once on a non-nil error.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago (the listener is closed before it returns,
// so a test binds it right after; loopback only, never another address).
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Must(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
