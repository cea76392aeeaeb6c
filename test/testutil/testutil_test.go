// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package testutil

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func TestEventuallyRetriesUntilNil(t *testing.T) {
	calls := 0
	EventuallyWithin(t, 5*time.Second, "the third call", func() error {
		if calls++; calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if calls != 3 {
		t.Errorf("check called %d times, want 3", calls)
	}
}

func TestFreePortIsBindable(t *testing.T) {
	port := FreePort(t)
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("port %d from FreePort: %v", port, err)
	}
	l.Close()
}

// TestFreePortsDistinctAndBindable: the ports of one call are distinct (a controller's health and metrics servers
// each get their own) and all free for the caller once it returns.
func TestFreePortsDistinctAndBindable(t *testing.T) {
	for range 50 {
		ports := FreePorts(t, 3)
		seen := map[int]bool{}
		var listeners []net.Listener
		for _, port := range ports {
			if seen[port] {
				t.Fatalf("FreePorts returned port %d twice: %v", port, ports)
			}
			seen[port] = true
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				t.Fatalf("port %d of %v: %v", port, ports, err)
			}
			listeners = append(listeners, l)
		}
		for _, l := range listeners {
			l.Close()
		}
	}
}

func TestGoldenWritesThenCompares(t *testing.T) {
	golden := filepath.Join(t.TempDir(), "sub", "out.golden")
	t.Setenv(UpdateEnv, "1")
	Golden(t, golden, "content\n")
	t.Setenv(UpdateEnv, "")
	Golden(t, golden, "content\n")
	if b, err := os.ReadFile(golden); err != nil || string(b) != "content\n" {
		t.Errorf("golden file: %q, %v", b, err)
	}
}
