// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// machineLockName is the machine-wide lock every running node holds from before its QEMU starts until Stop: one VM
// node per machine at a time. A node's QEMU emulates its 2 CPUs (TCG) on the machine's 2 cores; two nodes at once
// (test/vmnode beside test/e2e under `go test ./...`, which runs two packages at a time) leave each guest a
// fraction of a core, and a boot then runs past BootTimeout. Every test process of this repository (any clone)
// shares the file.
const machineLockName = "gvisor-test-vmnode.lock"

// machineLockPoll is how often a node waiting for the machine tries the lock again.
const machineLockPoll = time.Second

// lockMachine waits until no other node runs on the machine (or ctx ends) and returns the release.
func lockMachine(ctx context.Context, logf func(string, ...any)) (unlock func(), err error) {
	return waitLock(ctx, filepath.Join(os.TempDir(), machineLockName), logf)
}

// waitLock takes the exclusive flock of the file name, trying again every machineLockPoll until ctx ends.
func waitLock(ctx context.Context, name string, logf func(string, ...any)) (unlock func(), err error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the VM nodes' machine lock %s: %w", name, err)
	}
	t0, waited := time.Now(), false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("taking the VM nodes' machine lock %s: %w", name, err)
		}
		if !waited {
			logf("waiting for the machine's other VM node to stop (%s)", name)
			waited = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for the machine's other VM node to stop (%s): %w", name, ctx.Err())
		case <-time.After(machineLockPoll):
		}
	}
	if waited {
		logf("the machine's other VM node stopped after %.1fs", time.Since(t0).Seconds())
	}
	return func() { f.Close() }, nil // closing the descriptor releases its flock
}
