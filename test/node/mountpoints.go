// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// createdXattr marks the mount points the harness created on the machine (e.g. /var/bin/containerruntimes where
// the machine has no bin dir). Any node's cleanup removes a marked directory once it is empty and mounted in no
// mount namespace, so that the last of several nodes (also of concurrently running test packages) removes it.
const createdXattr = "user.gvisor-test-node-created"

// ensureMountPoint creates dir and its missing parents, marks each one it created and returns them, deepest first
// (for file systems without user xattrs, the node removes those itself).
func ensureMountPoint(dir string) ([]string, error) {
	var missing []string
	for d := dir; d != "/"; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, d := range missing {
		_ = syscall.Setxattr(d, createdXattr, []byte("1"), 0)
	}
	return missing, nil
}

// harnessCreated reports whether d carries createdXattr.
func harnessCreated(d string) bool {
	_, err := syscall.Getxattr(d, createdXattr, make([]byte, 8))
	return err == nil
}

// leftoverMountPoints returns the directories among dirs and their ancestors that the harness created (marked, or
// listed in own) and that are empty and mounted nowhere, deepest first: what a cleanup must remove.
func leftoverMountPoints(dirs, own []string) []string {
	var out []string
	for _, dir := range dirs {
		for d := dir; d != "/"; d = filepath.Dir(d) {
			if slices.Contains(out, d) {
				continue
			}
			entries, err := os.ReadDir(d)
			if err != nil || (!harnessCreated(d) && !slices.Contains(own, d)) || mounted(d) {
				break
			}
			if len(entries) > 0 && (len(entries) != 1 || !slices.Contains(out, filepath.Join(d, entries[0].Name()))) {
				break
			}
			out = append(out, d)
		}
	}
	return out
}

// removeMountPoints removes leftoverMountPoints.
func removeMountPoints(dirs, own []string) error {
	var errs []error
	for _, d := range leftoverMountPoints(dirs, own) {
		if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EBUSY) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
