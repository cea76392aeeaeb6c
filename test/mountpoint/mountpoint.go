// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package mountpoint lends the machine's directories to the test harnesses that bind their own directories over
// them in private mount namespaces (test/node, test/kubenode, test/nodeagent): /etc/containerd,
// /var/bin/containerruntimes, /opt/containerd. A directory the machine lacks is created for the mount and removed
// again once no harness of any test process uses one.
//
// Why a lease across processes: go test runs packages in parallel, and since Linux 3.18 removing a directory that
// is a mount point in another mount namespace succeeds and detaches that mount there. One harness's cleanup
// removing /var/bin/containerruntimes made another package's node lose its bin dir in the middle of a test
// (containerd's shim exec: "not found"). Every user holds a shared flock on one machine-wide lock file from before
// it creates a directory until its mounts are gone; a cleanup removes directories only under the exclusive lock,
// which it gets only when no lease is held, so the last user removes what all of them created.
package mountpoint

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// lockName and registryName are machine-wide: every test process of this repository (any clone) shares them.
const (
	lockName     = "gvisor-test-mountpoints.lock"
	registryName = "gvisor-test-mountpoints.list"
)

// Lease is one harness's use of machine directories as mount points. Release it after its mounts are gone.
type Lease struct {
	f *os.File
}

// Acquire takes a lease and makes sure that every one of dirs exists, creating missing ones (and their missing
// parents), which the registry remembers for removal once no lease is held.
func Acquire(dirs ...string) (*Lease, error) {
	f, err := openLock()
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		f.Close()
		return nil, fmt.Errorf("taking the shared lock %s: %w", f.Name(), err)
	}
	l := &Lease{f: f}
	for _, dir := range dirs {
		if err := ensure(dir); err != nil {
			_ = l.Release()
			return nil, err
		}
	}
	return l, nil
}

// Release ends the lease; if it was the last one on the machine, it removes the registered directories that are
// empty and mounted in no mount namespace, deepest first.
func (l *Lease) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Close() // closing the descriptor releases its flock
	l.f = nil
	return removeUnused()
}

// Leftover returns the registered directories that the last lease's release should have removed: empty, mounted
// nowhere, and no lease held. With a lease held (another harness running) it returns nil.
func Leftover() ([]string, error) {
	unlock, ok, err := exclusive()
	if err != nil || !ok {
		return nil, err
	}
	defer unlock()
	dirs, err := registered()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dirs {
		if removable(d) {
			out = append(out, d)
		}
	}
	return out, nil
}

// ensure creates dir and its missing parents, registering each one it created (deepest last in the file: the
// removal goes in reverse).
func ensure(dir string) error {
	var missing []string
	for d := dir; d != "/"; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	if len(missing) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the mount point %s on the machine: %w", dir, err)
	}
	slices.Reverse(missing) // parents first
	reg, err := os.OpenFile(filepath.Join(os.TempDir(), registryName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("registering the mount points %v: %w", missing, err)
	}
	defer reg.Close()
	// One write per call: O_APPEND keeps concurrent leases' lines whole.
	if _, err := reg.WriteString(strings.Join(missing, "\n") + "\n"); err != nil {
		return fmt.Errorf("registering the mount points %v: %w", missing, err)
	}
	return nil
}

// removeUnused removes, under the exclusive lock, the registered directories nothing uses, and keeps the rest in
// the registry. Without the exclusive lock (a lease is held) it does nothing: that lease's release will.
func removeUnused() error {
	unlock, ok, err := exclusive()
	if err != nil || !ok {
		return err
	}
	defer unlock()
	dirs, err := registered()
	if err != nil {
		return err
	}
	var keep []string
	var errs []error
	for i := len(dirs) - 1; i >= 0; i-- { // deepest first
		d := dirs[i]
		if slices.Contains(keep, d) {
			continue
		}
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if !removable(d) {
			keep = append(keep, d)
			continue
		}
		if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			if !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EBUSY) {
				errs = append(errs, fmt.Errorf("removing the mount point %s the tests created: %w", d, err))
			}
			keep = append(keep, d)
		}
	}
	slices.Reverse(keep)
	content := ""
	if len(keep) > 0 {
		content = strings.Join(keep, "\n") + "\n"
	}
	if err := os.WriteFile(filepath.Join(os.TempDir(), registryName), []byte(content), 0o644); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// exclusive takes the lock exclusively if no lease is held; ok is false if one is.
func exclusive() (unlock func(), ok bool, err error) {
	f, err := openLock()
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("taking the exclusive lock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, true, nil
}

func openLock() (*os.File, error) {
	name := filepath.Join(os.TempDir(), lockName)
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the mount points' lock %s: %w", name, err)
	}
	return f, nil
}

// registered returns the registry's directories in the order created (parents before children).
func registered() ([]string, error) {
	data, err := os.ReadFile(filepath.Join(os.TempDir(), registryName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	return out, nil
}

// removable reports whether d exists, is an empty directory and is mounted in no mount namespace.
func removable(d string) bool {
	entries, err := os.ReadDir(d)
	return err == nil && len(entries) == 0 && !Mounted(d)
}

// Mounted reports whether any process on the machine (in any mount namespace) has a mount at dir.
func Mounted(dir string) bool {
	files, _ := filepath.Glob("/proc/[0-9]*/mountinfo")
	for _, f := range files {
		if slices.Contains(Points(f), dir) {
			return true
		}
	}
	return false
}

// Points returns the mount points listed in a mountinfo file (/proc/PID/mountinfo).
func Points(mountinfo string) []string {
	f, err := os.Open(mountinfo)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) > 4 {
			out = append(out, unescape(fields[4]))
		}
	}
	return out
}

// unescape decodes the octal escapes (\040 for a space) of mountinfo paths.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var c byte
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &c); err == nil {
				b.WriteByte(c)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
