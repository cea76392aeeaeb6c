// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

//go:build linux && (amd64 || arm64)

package main

import "syscall"

// pollNanos is how often runChild looks whether its child has ended: wait4 cannot block with a deadline, and a
// timer would need package time's machinery. Ten wake-ups a second, only while a proof runs (a few seconds every
// interval), cost nothing measurable.
const pollNanos = 100 * 1000 * 1000

// runChild fork-execs argv (argv[0] an absolute path: there is no PATH lookup) with this process's environment and
// its stdin, stdout and stderr, so that the child's log lines are the container's, and waits at most timeout
// seconds for it. It returns "" when the child exited 0, else why not, in words for a termination message. A child
// past its timeout is killed (SIGKILL) and reaped. The child is also killed when this program ends (SIGTERM during
// a proof): in a container the PID namespace's end does that anyway, elsewhere Pdeathsig does.
func runChild(argv []string, timeout int64) string {
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
		Env: syscall.Environ(), Files: []uintptr{0, 1, 2}, Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return "could not start " + argv[0] + ": " + err.Error()
	}
	for waited := int64(0); ; waited += pollNanos {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			// Not ours to wait for any more (ECHILD): nothing left to kill or to learn.
			return "waiting for " + argv[0] + ": " + err.Error()
		case got == pid:
			return exitReason(argv[0], ws)
		}
		if waited >= timeout*1000*1000*1000 {
			_ = syscall.Kill(pid, syscall.SIGKILL) // it may have just ended: the wait below reaps it either way
			for {
				if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
					break
				}
			}
			return argv[0] + " did not finish within " + itoa(timeout) + "s and was killed"
		}
		ts := syscall.Timespec{Nsec: pollNanos}
		_ = syscall.Nanosleep(&ts, nil) // woken early (a signal): the loop just looks sooner
	}
}

// exitReason is "" for an exit with status 0, else how the child ended.
func exitReason(name string, ws syscall.WaitStatus) string {
	switch {
	case ws.Exited() && ws.ExitStatus() == 0:
		return ""
	case ws.Exited():
		return name + " exited with status " + itoa(int64(ws.ExitStatus()))
	case ws.Signaled():
		return name + " was killed by signal " + itoa(int64(ws.Signal())) + " (" + ws.Signal().String() + ")"
	}
	return name + " ended with wait status " + itoa(int64(ws))
}

// sleepSeconds sleeps s seconds in nanosleep, resuming after an interrupting signal with the time that was left.
func sleepSeconds(s int64) {
	ts := syscall.Timespec{Sec: s}
	for {
		var rem syscall.Timespec
		if err := syscall.Nanosleep(&ts, &rem); err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
