// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package testutil

import (
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// DialAs connects to the Unix socket name in dir as user and group uid, with no supplementary group, and returns
// the error it met (nil if it connected): what a process of that user meets, which the kernel decides by the
// socket's and the directory's permissions. Only the dialling OS thread takes those credentials (raw system calls:
// Go's own Setuid would change every thread's); it is never unlocked, so it ends with its goroutine. The socket is
// reached through the directory's descriptor (/proc/thread-self/fd), so that a harness node's long root still fits
// a socket address.
func DialAs(uid int, dir, name string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer func() { _ = d.Close() }()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		id := uintptr(uid)
		for _, c := range []struct {
			name       string
			trap, a, b uintptr
		}{{"setgroups", unix.SYS_SETGROUPS, 0, 0}, {"setresgid", unix.SYS_SETRESGID, id, id}, {"setresuid", unix.SYS_SETRESUID, id, id}} {
			if _, _, errno := unix.RawSyscall(c.trap, c.a, c.b, c.b); errno != 0 {
				errc <- fmt.Errorf("%s: %w", c.name, errno)
				return
			}
		}
		conn, err := net.Dial("unix", fmt.Sprintf("/proc/thread-self/fd/%d/%s", d.Fd(), name))
		if err == nil {
			_ = conn.Close()
		}
		errc <- err
	}()
	return <-errc
}
