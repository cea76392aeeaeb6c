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

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
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
// On a host root without LockDir the run creates it and removes it again when it releases the lock (it is empty
// then unless the run installed something): a run waiting on the removed directory notices and locks the new one.
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
// It returns the function that releases it. The release also removes what taking the lock created: the holder
// record and, on a host root that lacked it, LockDir (when empty), so that a run that changed nothing leaves the
// node's tree as it found it.
func (r *Run) lock(ctx context.Context, action string, exclusive bool) (func(), error) {
	f, created, err := r.lockDir(ctx, exclusive)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return func() {}, nil // plan on a node without LockDir: no run ever worked here, nothing to wait for
	}
	if exclusive {
		r.recordHolder(action)
	}
	return func() {
		if exclusive {
			_ = hostfs.Remove(r.host(HolderPath))
			// Still holding the lock: a run waiting on this directory finds it unlinked and takes a new one
			// (lockDir); nobody else writes into it while we hold it, so empty means nothing but ours was there.
			if err := hostfs.RemoveCreatedDirs(created); err != nil {
				r.opts.Logger.Warn("cannot remove the directory this run created for the node's lock", "step", "lock", "error", err.Error())
			}
		}
		_ = f.Close() // closing the last descriptor releases the flock
	}, nil
}

// lockDir opens and locks LockDir and returns it with the directories it had to create. A run that created
// LockDir removes it again when it releases the lock (see lock); a run that was waiting on it then holds the lock of
// an unlinked directory, which excludes nobody, so it opens and locks the current one instead.
func (r *Run) lockDir(ctx context.Context, exclusive bool) (*os.File, []string, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		f, created, err := r.openLockDir(exclusive)
		if err != nil || f == nil {
			return nil, nil, err
		}
		if err := r.waitForLock(ctx, f, how); err != nil {
			// A LockDir this run created stays: removing it without holding its lock would pull it from under
			// the run that does, and the next run would lock a new one alongside that run.
			_ = f.Close()
			return nil, nil, err
		}
		if r.isLockDir(f) {
			return f, created, nil
		}
		_ = f.Close()
	}
}

// isLockDir reports whether f is still the directory at LockDir.
func (r *Run) isLockDir(f *os.File) bool {
	locked, err := f.Stat()
	if err != nil {
		return false
	}
	current, err := os.Stat(r.host(LockDir))
	return err == nil && os.SameFile(locked, current)
}

// openLockDir opens LockDir, creating it for an exclusive lock, and returns the directories it created. A shared
// lock on a node where LockDir does not exist returns no file and no error: no run ever worked there, there is
// nothing to wait for.
func (r *Run) openLockDir(exclusive bool) (*os.File, []string, error) {
	dir := r.host(LockDir)
	var created []string
	if exclusive {
		// The installation pod mounts it DirectoryOrCreate; a bare host root may lack it.
		var err error
		if created, err = hostfs.CreateDirs(dir); err != nil {
			_ = hostfs.RemoveCreatedDirs(created) // parents of LockDir only: nobody locks them
			return nil, nil, fmt.Errorf("creating %s for the installer's lock: %w", LockDir, err)
		}
	}
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) && !exclusive {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("opening %s for the installer's lock: %w", LockDir, err)
	}
	return f, created, nil
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

// recordHolder writes who holds the exclusive lock to HolderPath, for a run that gives up waiting to name. The
// record is best-effort: the lock is the flock, not this file, and a run whose node cannot take these hundred
// bytes (a full disk) still has nothing to do when the node is up to date, or fails at its first real write, whose
// error names the full filesystem. The write is atomic, so a failure leaves no empty or partial record; a stale
// record of a dead run is removed rather than left to name the wrong holder.
func (r *Run) recordHolder(action string) {
	host, _ := os.Hostname() // the pod's name in the installation DaemonSet
	holder := fmt.Sprintf("pid %d on %s, %s since %s\n", os.Getpid(), host, action, time.Now().UTC().Format(time.RFC3339))
	err := hostfs.WriteFileAtomic(r.host(HolderPath), []byte(holder), 0o644)
	if err == nil {
		return
	}
	_ = hostfs.Remove(r.host(HolderPath))
	r.opts.Logger.Warn("cannot record the lock's holder; a run waiting for the lock will not be able to name this one", "step", "lock",
		"file", HolderPath, "error", err.Error())
}

// lockHolder is what the holder recorded, or why it is unknown.
func (r *Run) lockHolder() string {
	data, err := os.ReadFile(r.host(HolderPath))
	if err != nil {
		return "unknown (" + filepath.Base(HolderPath) + " unreadable: a run older than the lock, one that is just starting, or one that could not write it, e.g. on a full disk)"
	}
	return strings.TrimSpace(string(data))
}
