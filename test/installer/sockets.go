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

// SharedWithMachine reports whether path, as process pid sees it (through /proc/PID/root, which resolves in the
// process's mount namespace), is the very file that the machine (the test's mount namespace) has at path. A path
// missing on either side is not shared.
func SharedWithMachine(pid int, path string) (bool, error) {
	inside, err := os.Stat(filepath.Join(fmt.Sprintf("/proc/%d/root", pid), path))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s as process %d sees it: %w", path, pid, err)
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
	sa, errA := os.Stat(filepath.Join(fmt.Sprintf("/proc/%d/root", pa), a))
	sb, errB := os.Stat(filepath.Join(fmt.Sprintf("/proc/%d/root", pb), b))
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
