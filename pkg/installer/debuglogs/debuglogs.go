// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package debuglogs bounds what runsc's debug logs take of a node's disk. A pool's `debug`, `strace` or
// `debug-log` flag makes runsc write a log under v1alpha1.DebugLogDir (/var/log/runsc) for every command of every
// sandbox, and with strace one line per system call of the sandboxed applications: the tenant whose pod makes the
// calls decides how much. runsc has no limit of its own, so the keeper holds the directory to a budget: every
// Interval it sums the files' disk use and, above Budget, truncates the largest until they are under LowWater of it
// (runsc opens its logs with O_APPEND, so it writes on at the new end and leaves no hole); files nobody wrote to for
// MaxIdle, and that no process holds open, are removed with the directories they leave empty. What the node can lose to these logs is Budget plus
// what runsc writes in one Interval (BENCHMARKS.md, "Syscall logs").
package debuglogs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// DefaultBudget is what the debug logs of one node may hold on its disk: room for hours of one sandbox's debug
	// log or minutes of a busy strace, and a fraction of the kubelet's eviction margin on any node disk Gardener
	// gives a worker (nodefs.available below 10 % evicts pods).
	DefaultBudget = 1 << 30
	// DefaultInterval is how often the keeper looks: a strace under load writes tens of MiB per second, so the
	// overshoot above the budget is a few hundred MiB at most.
	DefaultInterval = 5 * time.Second
	// DefaultMaxIdle is how long a log nobody writes to is kept: long enough to read a failed pod's logs after the
	// fact, short enough that the logs of sandboxes long gone do not pile up.
	DefaultMaxIdle = 72 * time.Hour
	// LowWater is the share of the budget a trim brings the logs down to, so that a busy log is not cut on every
	// pass.
	LowWater = 0.75
	// TruncatedNote is the line a truncated log starts again with, so that its reader knows lines are missing.
	TruncatedNote = "[gvisor-installer: this log was truncated here to keep the node's runsc debug logs within their budget]\n"
)

// Keeper holds the logs under Dir to Budget.
type Keeper struct {
	Dir      string
	Budget   int64
	Interval time.Duration
	MaxIdle  time.Duration
	Logger   *slog.Logger
	// now is the clock (time.Now when nil): the test seam for idle logs.
	now func() time.Time
}

// Pass is what one pass found and did.
type Pass struct {
	Files     int   // regular files under Dir
	Bytes     int64 // their disk use before the pass
	Truncated int   // files truncated
	Removed   int   // idle files removed
	Freed     int64 // disk use freed
}

// Run passes every Interval until ctx ends; a pass that fails is logged and the next one tries again.
func (k *Keeper) Run(ctx context.Context) error {
	if err := k.check(); err != nil {
		return err
	}
	t := time.NewTicker(k.Interval)
	defer t.Stop()
	for {
		if p, err := k.Pass(); err != nil {
			k.log().Warn("Keeping the runsc debug logs within their budget", "dir", k.Dir, "error", err.Error())
		} else if p.Truncated+p.Removed > 0 {
			k.log().Info("Trimmed the runsc debug logs", "dir", k.Dir, "budget", k.Budget, "bytes", p.Bytes,
				"truncated", p.Truncated, "removed", p.Removed, "freed", p.Freed)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (k *Keeper) log() *slog.Logger {
	if k.Logger != nil {
		return k.Logger
	}
	return slog.Default()
}

func (k *Keeper) check() error {
	switch {
	case k.Dir == "":
		return errors.New("--dir: the directory of the runsc debug logs is required")
	case k.Budget <= 0:
		return fmt.Errorf("--budget %d: must be positive", k.Budget)
	case k.Interval <= 0:
		return fmt.Errorf("--interval %s: must be positive", k.Interval)
	case k.MaxIdle <= 0:
		return fmt.Errorf("--max-idle %s: must be positive", k.MaxIdle)
	}
	return nil
}

// logFile is one regular file under Dir.
type logFile struct {
	path    string
	used    int64 // disk use (allocated blocks)
	written time.Time
}

// Pass makes one pass over Dir. A Dir that does not exist yet (no sandbox wrote a log) is an empty pass.
func (k *Keeper) Pass() (Pass, error) {
	files, err := k.list()
	if err != nil {
		return Pass{}, err
	}
	p := Pass{Files: len(files)}
	now := time.Now
	if k.now != nil {
		now = k.now
	}
	var kept []logFile
	for _, f := range files {
		p.Bytes += f.used
		if now().Sub(f.written) > k.MaxIdle {
			if removeUnused(f.path) == nil {
				p.Removed++
				p.Freed += f.used
				continue
			}
		}
		kept = append(kept, f)
	}
	used := p.Bytes - p.Freed
	if used > k.Budget {
		slices.SortFunc(kept, func(a, b logFile) int { return cmp.Or(cmp.Compare(b.used, a.used), cmp.Compare(a.path, b.path)) })
		target := int64(float64(k.Budget) * LowWater)
		for _, f := range kept {
			if used <= target {
				break
			}
			freed, err := truncate(f.path)
			if err != nil {
				k.log().Warn("Truncating a runsc debug log", "file", f.path, "error", err.Error())
				continue
			}
			p.Truncated++
			p.Freed += freed
			used -= freed
		}
	}
	k.removeEmptyDirs(now())
	return p, nil
}

// list is every regular file under Dir; symbolic links and anything else that is not a regular file are not
// followed or touched.
func (k *Keeper) list() ([]logFile, error) {
	var files []logFile
	err := filepath.WalkDir(k.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // gone meanwhile (runsc delete, or Dir not there yet)
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil { // else gone meanwhile
			used := info.Size()
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				used = st.Blocks * 512
			}
			files = append(files, logFile{path: path, used: used, written: info.ModTime()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the runsc debug logs under %s: %w", k.Dir, err)
	}
	return files, nil
}

// truncate empties the regular file at path (opened without following a link) and notes it there; it returns the
// disk use freed.
func truncate(path string) (int64, error) {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var before unix.Stat_t
	if err := unix.Fstat(fd, &before); err != nil {
		return 0, err
	}
	if before.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0, fmt.Errorf("%s is not a regular file", path)
	}
	if err := f.Truncate(0); err != nil {
		return 0, err
	}
	if _, err := f.WriteString(TruncatedNote); err != nil {
		return 0, err
	}
	var after unix.Stat_t
	if err := unix.Fstat(fd, &after); err != nil {
		return 0, err
	}
	return max(0, before.Blocks*512-after.Blocks*512), nil
}

// removeUnused removes the regular file at path if no process has it open: a file runsc still holds would go on
// growing unlinked, out of the keeper's sight. A write lease (F_SETLEASE) is granted only while no other
// descriptor of the file is open; it is held across the unlink, so no writer opens the file in between.
func removeUnused(path string) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_WRLCK); err != nil {
		return fmt.Errorf("%s is open elsewhere: %w", path, err)
	}
	defer unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK) //nolint:errcheck // closing the descriptor ends it too
	return unix.Unlink(path)
}

// emptyDirGrace is how long a directory under Dir must have been unchanged before the keeper removes it empty: runsc
// creates a sandbox's log directory and then its first log in it (MkdirAll, then open), and a directory removed in
// between would fail that runsc command, and with it the pod's start.
const emptyDirGrace = time.Minute

// removeEmptyDirs removes the directories under Dir (not Dir) that hold nothing and have not changed for
// emptyDirGrace: the per-sandbox directories of sandboxes whose logs were removed. rmdir of a directory runsc just
// filled fails and keeps it.
func (k *Keeper) removeEmptyDirs(now time.Time) {
	var dirs []string
	_ = filepath.WalkDir(k.Dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && path != k.Dir {
			if info, err := d.Info(); err == nil && now.Sub(info.ModTime()) > emptyDirGrace {
				dirs = append(dirs, path)
			}
		}
		return nil
	})
	for _, d := range slices.Backward(dirs) { // children before their parents
		_ = unix.Rmdir(d)
	}
}
