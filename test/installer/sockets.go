// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installertest

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ListeningSockets returns the paths of the unix sockets process pid listens on (its open file descriptors
// matched against /proc/PID/net/unix), as the process named them when it bound them: in its own mount namespace.
// Abstract and unnamed sockets are left out. This finds every listener, also those a daemon does not log (NRI's).
func ListeningSockets(pid int) ([]string, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, fmt.Errorf("listing the descriptors of process %d: %w", pid, err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		// A descriptor closed meanwhile is no listener.
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/net/unix", pid))
	if err != nil {
		return nil, fmt.Errorf("reading the unix sockets of process %d: %w", pid, err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Num RefCount Protocol Flags Type St Inode Path; flag 00010000 (__SO_ACCEPTCON) marks a listener.
		fields := strings.Fields(sc.Text())
		if len(fields) == 8 && fields[3] == "00010000" && inodes[fields[6]] && strings.HasPrefix(fields[7], "/") {
			out = append(out, fields[7])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the unix sockets of process %d: %w", pid, err)
	}
	return out, nil
}

// SharedWithMachine reports whether path, as process pid sees it (resolved in its mount namespace and under its
// root, see statIn), is the very file that the machine (the test's mount namespace) has at path. A path missing on
// either side is not shared.
func SharedWithMachine(pid int, path string) (bool, error) {
	inside, err := statIn(pid, path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	outside, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s on the machine: %w", path, err)
	}
	return os.SameFile(inside, outside), nil
}

// SameFileFor reports whether path a as process pa sees it and path b as process pb sees it are the same file
// (false when either is missing): two daemons that serve one socket file.
func SameFileFor(pa int, a string, pb int, b string) bool {
	sa, errA := statIn(pa, a)
	sb, errB := statIn(pb, b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// statIn stats path as process pid sees it. A plain stat of /proc/PID/root/<path> walks the process's mount
// namespace but resolves absolute symlinks against the caller's root: /var/run -> /run would land on the
// machine's /run. openat2 with RESOLVE_IN_ROOT resolves them under /proc/PID/root instead.
func statIn(pid int, path string) (fs.FileInfo, error) {
	root := fmt.Sprintf("/proc/%d/root", pid)
	rootFD, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", root, err)
	}
	defer unix.Close(rootFD)
	fd, err := unix.Openat2(rootFD, strings.TrimPrefix(path, "/"), &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT})
	if err != nil {
		return nil, &fs.PathError{Op: "openat2 in " + root, Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(root, path))
	defer f.Close()
	return f.Stat()
}
