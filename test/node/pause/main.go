// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command pause is the test nodes' sandbox ("pause") image: the first process of every pod sandbox. It blocks
// until SIGTERM or SIGINT and reaps the children that get reparented to it meanwhile, like Kubernetes' pause. It
// is built statically (CGO_ENABLED=0) by the harness (test/node), so the image needs nothing but this binary.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			return
		}
		reap()
	}
}

// reap collects every exited child without blocking (one SIGCHLD may stand for several exits).
func reap() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
