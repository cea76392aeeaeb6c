// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// CgroupMounts returns the mount points of every cgroup hierarchy (v1 controllers, named ones, the v2 unified one).
func CgroupMounts() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// mountinfo: ID parent major:minor root mountpoint options [optional...] - fstype source superoptions
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if sep < 0 || sep+1 >= len(fields) || len(fields) < 5 {
			continue
		}
		if fs := fields[sep+1]; fs == "cgroup" || fs == "cgroup2" {
			out = append(out, fields[4])
		}
	}
	return out, sc.Err()
}

// removeCgroups removes the node's cgroups (RemoveCgroups).
func (n *Node) removeCgroups(timeout time.Duration) []string {
	return RemoveCgroups(n.cgroupParent, timeout)
}

// CgroupDirs returns the cgroup directories at root (a cgroupfs path such as /gvisor-test-1a2b) and below, in
// every hierarchy, deepest first.
func CgroupDirs(root string) []string {
	mounts, _ := CgroupMounts()
	var dirs []string
	for _, m := range mounts {
		_ = filepath.WalkDir(filepath.Join(m, root), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
	}
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	return dirs
}

// RemoveCgroups removes the cgroups at root and below depth-first and returns those that remain after a bounded
// retry (a cgroup is busy for a moment after its last process was killed).
func RemoveCgroups(root string, timeout time.Duration) []string {
	deadline := time.Now().Add(timeout)
	for {
		var left []string
		for _, d := range CgroupDirs(root) {
			if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
				left = append(left, d+": "+err.Error())
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}
