// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The part of systemd's D-Bus API the installer uses (pkg/installer/restart through go-systemd): the Manager's
// RestartUnit method and its JobRemoved signal.
const (
	systemdName      = "org.freedesktop.systemd1"
	systemdPath      = dbus.ObjectPath("/org/freedesktop/systemd1")
	systemdManager   = "org.freedesktop.systemd1.Manager"
	containerdUnit   = "containerd.service"
	busSocket        = "dbus/system_bus_socket"
	jobPathPrefix    = "/org/freedesktop/systemd1/job/"
	noSuchUnitError  = "org.freedesktop.systemd1.NoSuchUnit"
	standInJobTimout = 2 * time.Minute
)

// systemdStandIn answers on the node's system bus as systemd would for containerd.service: RestartUnit restarts the
// node's real containerd (Node.RestartContainerd) and emits JobRemoved with "done" or "failed" once it serves CRI
// again, or not. It runs in the test process; the bus (Debian's dbus-daemon) runs in the node.
type systemdStandIn struct {
	n    *Node
	conn *dbus.Conn
	mu   sync.Mutex
	jobs uint32
	// Restarts counts the RestartUnit calls for containerd.service.
	Restarts int
}

// startSystemBus starts dbus-daemon in the node on /run/dbus/system_bus_socket and the stand-in on it.
func (n *Node) startSystemBus(context.Context) error {
	bus, err := n.start("dbus-daemon", nil, n.cfg.DBusDaemon, "--config-file="+n.path("dbus.conf"), "--nofork", "--nopidfile")
	if err != nil {
		return err
	}
	// The socket file appears a moment before dbus-daemon accepts on it: retry the connection.
	sock := n.path(busSocket)
	s := &systemdStandIn{n: n}
	for i := 0; ; i++ {
		err := s.connect(sock)
		if err == nil {
			break
		}
		if exit := bus.exitErr(); exit != nil || i > 200 {
			return fmt.Errorf("the systemd stand-in on the node's bus %s: %w (%v)\n%s", sock, err, exit, bus.logTail(20))
		}
		time.Sleep(25 * time.Millisecond)
	}
	n.standin = s
	return nil
}

// connect owns systemd's name on the bus at sock; the connection lives until close (a dbus.WithContext connection
// would close with the start's context).
func (s *systemdStandIn) connect(sock string) error {
	conn, err := dbus.Dial("unix:path=" + sock)
	if err != nil {
		return err
	}
	if err := conn.Auth([]dbus.Auth{dbus.AuthExternal(strconv.Itoa(os.Getuid()))}); err != nil {
		conn.Close()
		return err
	}
	if err := conn.Hello(); err != nil {
		conn.Close()
		return err
	}
	if err := conn.Export(s, systemdPath, systemdManager); err != nil {
		conn.Close()
		return err
	}
	reply, err := conn.RequestName(systemdName, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		conn.Close()
		return fmt.Errorf("owning %s on the node's bus: reply %v, %w", systemdName, reply, err)
	}
	s.conn = conn
	return nil
}

// RestartUnit is systemd's Manager.RestartUnit for containerd.service: it returns the job at once and finishes it
// in the background, as systemd does.
func (s *systemdStandIn) RestartUnit(name, _ string) (dbus.ObjectPath, *dbus.Error) {
	if name != containerdUnit {
		return "", dbus.NewError(noSuchUnitError, []any{"Unit " + name + " not found."})
	}
	s.mu.Lock()
	s.jobs++
	s.Restarts++
	id := s.jobs
	s.mu.Unlock()
	job := dbus.ObjectPath(jobPathPrefix + strconv.Itoa(int(id)))
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), standInJobTimout)
		defer cancel()
		result := "done"
		s.mu.Lock() // one job at a time, as systemd runs one job per unit
		if err := s.n.RestartContainerd(ctx); err != nil {
			result = "failed"
			s.n.logf("systemd stand-in: restarting containerd failed: %v", err)
		}
		s.mu.Unlock()
		_ = s.conn.Emit(systemdPath, systemdManager+".JobRemoved", id, job, name, result)
	}()
	return job, nil
}

func (s *systemdStandIn) close() {
	if s != nil && s.conn != nil {
		s.conn.Close()
	}
}
