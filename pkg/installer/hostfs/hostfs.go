// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package hostfs writes files on the node the way a running node needs: atomically (a reader sees the old file or
// the new one, never a partial one) and without writing into a binary that may be executing.
package hostfs

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data: it writes a temporary file beside path, fsyncs it, renames it over
// path and fsyncs the directory. The rename replaces the directory entry, so a process executing the old file
// keeps its inode (no "text file busy", no corrupted running binary).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return replaceAtomic(path, perm, func(tmp *os.File) error {
		if _, err := tmp.Write(data); err != nil {
			return fmt.Errorf("writing %s: %w", tmp.Name(), err)
		}
		return nil
	})
}

// WriteAtomic replaces path with what write writes, the same way as WriteFileAtomic, for content that is streamed
// rather than held in memory.
func WriteAtomic(path string, perm fs.FileMode, write func(io.Writer) error) error {
	return replaceAtomic(path, perm, func(tmp *os.File) error {
		if err := write(tmp); err != nil {
			return fmt.Errorf("writing %s: %w", tmp.Name(), err)
		}
		return nil
	})
}

// Remove removes path and fsyncs its directory; a missing path is not an error.
func Remove(path string) error {
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// ReadFileIfExists returns the content of path, or exists=false when it does not exist.
func ReadFileIfExists(path string) (data []byte, exists bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, true, nil
}

// SameContent reports whether path exists, is a regular file with mode perm and holds exactly data.
func SameContent(path string, data []byte, perm fs.FileMode) (bool, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspecting %s: %w", path, err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm() != perm || st.Size() != int64(len(data)) {
		return false, nil
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	return bytes.Equal(cur, data), nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("opening directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}

// HashFile returns the hex SHA-512 and the size of path, streaming (release binaries are ~100 MB; the installer
// pod must not need that much memory).
func HashFile(path string) (sum string, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha512.New()
	size, err = io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), size, nil
}

// SameFile reports whether path is a regular file with mode perm, the given size and SHA-512.
func SameFile(path string, size int64, sum string, perm fs.FileMode) (bool, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspecting %s: %w", path, err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm() != perm || st.Size() != size {
		return false, nil
	}
	got, _, err := HashFile(path)
	if err != nil {
		return false, err
	}
	return got == sum, nil
}

// CopyFileAtomic copies src to dst like WriteFileAtomic, streaming, and refuses to rename the copy into place
// unless it has the SHA-512 wantSum (the source was verified earlier; it must not have changed since).
func CopyFileAtomic(src, dst, wantSum string, perm fs.FileMode) error {
	return CopyFileAtomicObserved(src, dst, wantSum, perm, nil)
}

// CopyFileAtomicObserved is CopyFileAtomic; copied, if not nil, runs once the temporary file holds the whole,
// verified copy, before it is renamed over dst. Tests freeze a run there, mid-copy as another run sees it.
func CopyFileAtomicObserved(src, dst, wantSum string, perm fs.FileMode, copied func(tmp string)) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("opening %s: %w", src, err)
	}
	defer in.Close()
	return replaceAtomic(dst, perm, func(tmp *os.File) error {
		h := sha512.New()
		if _, err := io.Copy(io.MultiWriter(tmp, h), in); err != nil {
			return fmt.Errorf("copying %s to %s: %w", src, tmp.Name(), err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != wantSum {
			return fmt.Errorf("%s changed after it was verified (SHA-512 %s, verified %s)", src, got[:16], wantSum[:16])
		}
		if copied != nil {
			copied(tmp.Name())
		}
		return nil
	})
}

// replaceAtomic creates a temporary file beside path, lets fill write it, then sets perm, fsyncs, renames it over
// path and fsyncs the directory. On any error the temporary file is removed and path is untouched; a full disk
// is named as such.
func replaceAtomic(path string, perm fs.FileMode, fill func(tmp *os.File) error) error {
	staged, err := stage(path, perm, fill)
	if err != nil {
		return err
	}
	return staged.Commit()
}

// Staged is a file's next content, written and synced beside it under a temporary name (the installer's stale
// temporaries' pattern) and not yet in place: Commit renames it over the file, which needs no room on the disk, so
// a caller can take the room for a write before it does what the write must record. Discard removes it.
type Staged struct{ tmp, path string }

// Stage writes data as path's next content beside it (mode perm); see Staged.
func Stage(path string, data []byte, perm fs.FileMode) (*Staged, error) {
	return stage(path, perm, func(tmp *os.File) error {
		if _, err := tmp.Write(data); err != nil {
			return fmt.Errorf("writing %s: %w", tmp.Name(), err)
		}
		return nil
	})
}

// Commit renames the staged content over the file and fsyncs the directory.
func (s *Staged) Commit() error {
	if err := os.Rename(s.tmp, s.path); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", s.tmp, s.path, err)
	}
	return syncDir(filepath.Dir(s.path))
}

// Discard removes the staged content; the file is left as it is.
func (s *Staged) Discard() error {
	if err := os.Remove(s.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", s.tmp, err)
	}
	return nil
}

func stage(path string, perm fs.FileMode, fill func(tmp *os.File) error) (_ *Staged, err error) {
	dir := filepath.Dir(path)
	defer func() { err = explainFull(dir, err) }()
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".gvisor-installer-*")
	if err != nil {
		return nil, fmt.Errorf("creating temporary file beside %s: %w", path, err)
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(tmpName)
		}
	}()
	if err := fill(tmp); err != nil {
		return nil, err
	}
	// CreateTemp uses 0600; set the wanted mode explicitly (umask does not apply to Chmod).
	if err := tmp.Chmod(perm); err != nil {
		return nil, fmt.Errorf("setting mode of %s: %w", tmpName, err)
	}
	if err := tmp.Sync(); err != nil {
		return nil, fmt.Errorf("syncing %s: %w", tmpName, err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("closing %s: %w", tmpName, err)
	}
	ok = true
	return &Staged{tmp: tmpName, path: path}, nil
}
