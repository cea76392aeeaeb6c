// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package hostfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CreateDirs is os.MkdirAll(dir, 0o755) that returns the directories it created, parents first, so that a run
// that fails can remove them again (RemoveCreatedDirs) and leave the node's tree as it found it.
func CreateDirs(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err == nil {
			if !st.IsDir() {
				return nil, fmt.Errorf("creating %s: %s is not a directory", dir, d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("creating %s: %w", dir, err)
		}
		missing = append(missing, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue // created meanwhile by someone else: not ours to remove
		}
		if err != nil {
			return created, explainFull(filepath.Dir(missing[i]), fmt.Errorf("creating %s: %w", missing[i], err))
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// RemoveCreatedDirs removes the directories CreateDirs created (parents first, as it returned them), deepest
// first, each only if it is empty: a directory that now holds a file this run installed stays.
func RemoveCreatedDirs(created []string) error {
	var errs []error
	for i := len(created) - 1; i >= 0; i-- {
		err := os.Remove(created[i])
		if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			continue
		}
		errs = append(errs, fmt.Errorf("removing %s, which this run created: %w", created[i], err))
	}
	return errors.Join(errs...)
}

// explainFull names the cause when err says the filesystem of dir is full (ENOSPC, or EDQUOT for a quota): the
// bare "no space left on device" of a write names a temporary file, not what the operator has to free.
func explainFull(dir string, err error) error {
	if !isFull(err) {
		return err
	}
	return fmt.Errorf("the filesystem of %s is full (disk full: free space on it, the next run retries): %w", dir, err)
}

// isFull reports whether err says a filesystem has no space left (ENOSPC, or EDQUOT for a quota).
func isFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
