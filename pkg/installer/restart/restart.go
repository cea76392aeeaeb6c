// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package restart restarts containerd after its configuration changed.
//
// The production restarter talks to systemd over its D-Bus API on the host's system bus socket (mounted into the
// pod at <host-root>/run/dbus/system_bus_socket), so the installation DaemonSet needs neither hostPID nor hostIPC
// nor a shell on the host. Tests plug in their own Restarter that restarts a real containerd daemon they started.
package restart

import (
	"context"
	"fmt"
	"os"
	"strconv"

	sdbus "github.com/coreos/go-systemd/v22/dbus"
	"github.com/godbus/dbus/v5"
)

// Restarter restarts containerd and returns once the restart was carried out (not necessarily healthy: the
// caller verifies over CRI).
type Restarter interface {
	Restart(ctx context.Context) error
	// String names the restarter in logs.
	String() string
}

// SystemBusSocket is the node path of the systemd D-Bus system bus socket.
const SystemBusSocket = "/run/dbus/system_bus_socket"

// Systemd restarts a unit through systemd's D-Bus API.
type Systemd struct {
	// Socket is the path of the system bus socket as the installer sees it (under --host-root).
	Socket string
	// Unit is the systemd unit, normally containerd.service.
	Unit string
}

func (s Systemd) String() string { return "systemd " + s.Unit + " via " + s.Socket }

// Restart asks systemd to restart the unit ("replace" mode, like `systemctl restart`) and waits for the job.
func (s Systemd) Restart(ctx context.Context) error {
	conn, err := sdbus.NewConnection(func() (*dbus.Conn, error) { return dial(ctx, s.Socket) })
	if err != nil {
		return fmt.Errorf("connecting to systemd over %s (is /run/dbus mounted from the host?): %w", s.Socket, err)
	}
	defer conn.Close()
	done := make(chan string, 1)
	if _, err := conn.RestartUnitContext(ctx, s.Unit, "replace", done); err != nil {
		return fmt.Errorf("asking systemd to restart %s: %w", s.Unit, err)
	}
	select {
	case result := <-done:
		if result != "done" {
			return fmt.Errorf("systemd job restarting %s finished with %q (see `journalctl -u %s` on the node)", s.Unit, result, s.Unit)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for systemd to restart %s: %w", s.Unit, ctx.Err())
	}
}

// dial connects to the bus at socket, authenticates as our uid (EXTERNAL; no user name lookup, which would need
// libc in a static binary) and says Hello, as go-systemd does for the default system bus.
func dial(ctx context.Context, socket string) (*dbus.Conn, error) {
	conn, err := dbus.Dial("unix:path="+socket, dbus.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	if err := conn.Auth([]dbus.Auth{dbus.AuthExternal(strconv.Itoa(os.Getuid()))}); err != nil {
		conn.Close()
		return nil, err
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}
