// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

//go:build linux && (amd64 || arm64)

package main

import "syscall"

// idle never returns: it makes sure the runtime uses one P, installs the exit handler for SIGTERM/SIGINT and sleeps.
func idle() {
	singleProc()
	if err := exitOnSignals(syscall.SIGTERM, syscall.SIGINT); err != nil {
		stderr("gvisor-idle: " + err.Error() + "\n")
		syscall.Exit(2)
	}
	for {
		// A blocking syscall: sysmon hands the P off and, with nothing to run, sleeps too (no periodic wake-ups).
		ts := syscall.Timespec{Sec: 1 << 30}
		syscall.Nanosleep(&ts, nil) //nolint:errcheck // EINTR and the like: sleep again
	}
}

// singleProc re-executes this program with GOMAXPROCS=1 unless it already runs with it. Go sizes its per-P state
// by the CPUs it may use, which the pod (no CPU limit) does not bound, so its RSS grows with the node's CPUs. It
// is the same PID and program afterwards; if the exec fails it idles as it is.
func singleProc() {
	env := syscall.Environ()
	if v, _ := syscall.Getenv("GOMAXPROCS"); v == "1" {
		return
	}
	self, err := readlink("/proc/self/exe")
	if err != nil {
		return
	}
	args, err := cmdline()
	if err != nil || len(args) == 0 {
		return
	}
	kept := env[:0:0]
	for _, kv := range env {
		if len(kv) < len("GOMAXPROCS=") || kv[:len("GOMAXPROCS=")] != "GOMAXPROCS=" {
			kept = append(kept, kv)
		}
	}
	syscall.Exec(self, args, append(kept, "GOMAXPROCS=1")) //nolint:errcheck // returns only on failure: idle as we are
}

// cmdline returns this process's argv, read from /proc/self/cmdline (package os, which has it as os.Args, is what
// this program does without).
func cmdline() ([]string, error) {
	data, err := readFile("/proc/self/cmdline")
	if err != nil {
		return nil, err
	}
	var args []string
	start := 0
	for i, b := range data {
		if b == 0 {
			args = append(args, string(data[start:i]))
			start = i + 1
		}
	}
	return args, nil
}

func readFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return out, nil
		}
		out = append(out, buf[:n]...)
	}
}

func readlink(path string) (string, error) {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink(path, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}
