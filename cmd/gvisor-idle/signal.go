// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

//go:build linux && (amd64 || arm64)

package main

import (
	"syscall"
	"unsafe"
)

// exitHandler (exit_<arch>.s) is a signal handler that calls exit_group(0) and nothing else: it touches no Go state,
// so it is safe on whatever thread and stack the signal arrives. Package os/signal would do the same job in Go but
// needs package os, whose memory every node would pay.
func exitHandler() //nolint:unused // implemented in exit_<arch>.s and referenced only from there (exitHandlerPC takes its address)

// exitHandlerPC returns exitHandler's address (its ABI0 entry, the one the kernel may jump to).
func exitHandlerPC() uintptr

// sigaction is the kernel's struct sigaction for rt_sigaction on amd64 and arm64 (not libc's).
type sigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

const (
	// saOnstack runs the handler on the thread's signal stack: Go gives every thread one, and a goroutine's stack
	// may be too small for the kernel's signal frame.
	saOnstack = 0x08000000
	// saRestorer is required on amd64 (without it the kernel cannot set up the frame); the handler never returns, so
	// the restorer is never called.
	saRestorer = 0x04000000
)

// exitOnSignals makes each of sigs end the process with status 0, replacing the Go runtime's handler (which, without
// os/signal, would let SIGTERM kill the process, or exit 2 as a container's PID 1).
func exitOnSignals(sigs ...syscall.Signal) error {
	sa := sigaction{handler: exitHandlerPC(), flags: saOnstack | saRestorer, restorer: exitHandlerPC(), mask: ^uint64(0)}
	for _, sig := range sigs {
		const sigsetSize = 8
		if _, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&sa)), 0, sigsetSize, 0, 0); errno != 0 {
			return errno
		}
	}
	return nil
}
