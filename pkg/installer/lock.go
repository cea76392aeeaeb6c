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
func (o *Options) lock(ctx context.Context, action string, exclusive bool) (func(), error) {
	dir := o.host(LockDir)
	if exclusive {
		// The installation pod mounts it DirectoryOrCreate; a bare host root may lack it.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating %s for the installer's lock: %w", LockDir, err)
		}
	}
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) && !exclusive {
		return func() {}, nil // no run ever worked here: nothing to wait for
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s for the installer's lock: %w", LockDir, err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	deadline := time.Now().Add(o.LockTimeout)
	waiting := false
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			_ = f.Close()
			return nil, fmt.Errorf("locking %s (flock): %w", LockDir, err)
		}
		if !waiting {
			waiting = true
			o.Logger.Info("another gvisor-installer run holds the node's lock; waiting", "step", "lock", "dir", LockDir,
				"holder", o.lockHolder(), "timeout", o.LockTimeout.String())
		}
		if !time.Now().Before(deadline) {
			_ = f.Close()
			return nil, refusal.New(LockDir, fmt.Sprintf("another gvisor-installer run holds the node's lock (flock on the directory; holder, as %s records it: %s) and did not release it within %s",
				HolderPath, o.lockHolder(), o.LockTimeout), "nothing to do if that run finishes: this pod retries; if it hangs, find it by the holder (e.g. kubectl -n kube-system get pods on this node) and delete it; --lock-timeout sets the wait")
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("waiting for the node's installer lock on %s: %w", LockDir, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
	if waiting {
		o.Logger.Info("got the node's lock", "step", "lock", "dir", LockDir)
	}
	if exclusive {
		host, _ := os.Hostname() // the pod's name in the installation DaemonSet
		holder := fmt.Sprintf("pid %d on %s, %s since %s\n", os.Getpid(), host, action, time.Now().UTC().Format(time.RFC3339))
		if err := os.WriteFile(o.host(HolderPath), []byte(holder), 0o644); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("recording the lock's holder in %s: %w", HolderPath, err)
		}
	}
	return func() {
		if exclusive {
			_ = os.Remove(o.host(HolderPath))
		}
		_ = f.Close() // closing the last descriptor releases the flock
	}, nil
}

// lockHolder is what the holder recorded, or why it is unknown.
func (o *Options) lockHolder() string {
	data, err := os.ReadFile(o.host(HolderPath))
	if err != nil {
		return "unknown (" + filepath.Base(HolderPath) + " unreadable: a run older than the lock, or one that is just starting)"
	}
	return strings.TrimSpace(string(data))
}
