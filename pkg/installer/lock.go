// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/refusal"
)

// One installer at a time on a node. Two runs overlap when a pod restarts while its predecessor is still
// terminating, or during a rollout; without a lock the second run's stale-temp cleanup deleted the first run's
// in-progress copy. Install and Uninstall hold an exclusive flock(2) on the directory LockDir for their whole run;
// plan holds a shared one (it writes nothing, so it does not create LockDir either).
//
// The lock is on the directory, not on a file in it: a directory always exists where the installer works (the
// pod mounts it from the host), so there is no lock file to create, to leave on the node after an uninstall, or to
// delete under a waiting run (a waiter would then lock an unlinked file while a third run locks a new one). The
// kernel releases the lock when its holder dies, however it dies. While holding it, a run records itself in
// HolderPath, so that a run that gives up waiting can name the holder; the file goes when the lock is released.
const (
	// LockDir is the node path whose flock serializes installer runs on a node.
	LockDir = "/etc/containerd"
	// HolderPath is the node path where the lock's holder describes itself (pid, host name, action, start).
	HolderPath = LockDir + "/.gvisor-installer.lock"
	// DefaultLockTimeout is how long a run waits for another run's lock: longer than a run that restarts
	// containerd, proves a sandbox and rolls back takes.
	DefaultLockTimeout = 5 * time.Minute
	lockPoll           = 100 * time.Millisecond
)

// lock takes the node's lock, exclusive for install and uninstall, shared for plan, waiting at most LockTimeout.
// It returns the function that releases it.
func (r *Run) lock(ctx context.Context, action string, exclusive bool) (func(), error) {
	f, err := r.openLockDir(exclusive)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return func() {}, nil // plan on a node without LockDir: no run ever worked here, nothing to wait for
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := r.waitForLock(ctx, f, how); err != nil {
		_ = f.Close()
		return nil, err
	}
	if exclusive {
		if err := r.recordHolder(action); err != nil {
			_ = f.Close()
			return nil, err
		}
	}
	return func() {
		if exclusive {
			_ = os.Remove(r.host(HolderPath))
		}
		_ = f.Close() // closing the last descriptor releases the flock
	}, nil
}

// openLockDir opens LockDir, creating it for an exclusive lock. A shared lock on a node where LockDir does not
// exist returns no file and no error: no run ever worked there, there is nothing to wait for.
func (r *Run) openLockDir(exclusive bool) (*os.File, error) {
	dir := r.host(LockDir)
	if exclusive {
		// The installation pod mounts it DirectoryOrCreate; a bare host root may lack it.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating %s for the installer's lock: %w", LockDir, err)
		}
	}
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) && !exclusive {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s for the installer's lock: %w", LockDir, err)
	}
	return f, nil
}

// waitForLock polls flock(how) on f until it is granted, LockTimeout passes (a refusal naming the holder) or ctx
// ends.
func (r *Run) waitForLock(ctx context.Context, f *os.File, how int) error {
	deadline := time.Now().Add(r.opts.LockTimeout)
	waiting := false
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("locking %s (flock): %w", LockDir, err)
		}
		if !waiting {
			waiting = true
			r.opts.Logger.Info("another gvisor-installer run holds the node's lock; waiting", "step", "lock", "dir", LockDir,
				"holder", r.lockHolder(), "timeout", r.opts.LockTimeout.String())
		}
		if !time.Now().Before(deadline) {
			return refusal.New(LockDir, fmt.Sprintf("another gvisor-installer run holds the node's lock (flock on the directory; holder, as %s records it: %s) and did not release it within %s",
				HolderPath, r.lockHolder(), r.opts.LockTimeout), "nothing to do if that run finishes: this pod retries; if it hangs, find it by the holder (e.g. kubectl -n kube-system get pods on this node) and delete it; --lock-timeout sets the wait")
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the node's installer lock on %s: %w", LockDir, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
	if waiting {
		r.opts.Logger.Info("got the node's lock", "step", "lock", "dir", LockDir)
	}
	return nil
}

// recordHolder writes who holds the exclusive lock to HolderPath, for a run that gives up waiting to name.
func (r *Run) recordHolder(action string) error {
	host, _ := os.Hostname() // the pod's name in the installation DaemonSet
	holder := fmt.Sprintf("pid %d on %s, %s since %s\n", os.Getpid(), host, action, time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(r.host(HolderPath), []byte(holder), 0o644); err != nil {
		return fmt.Errorf("recording the lock's holder in %s: %w", HolderPath, err)
	}
	return nil
}

// lockHolder is what the holder recorded, or why it is unknown.
func (r *Run) lockHolder() string {
	data, err := os.ReadFile(r.host(HolderPath))
	if err != nil {
		return "unknown (" + filepath.Base(HolderPath) + " unreadable: a run older than the lock, or one that is just starting)"
	}
	return strings.TrimSpace(string(data))
}
