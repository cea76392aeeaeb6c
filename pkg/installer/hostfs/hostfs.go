// Package hostfs writes files on the node the way a running node needs: atomically (a reader sees the old file or
// the new one, never a partial one) and without writing into a binary that may be executing.
package hostfs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces path with data: it writes a temporary file beside path, fsyncs it, renames it over
// path and fsyncs the directory. The rename replaces the directory entry, so a process executing the old file
// keeps its inode (no "text file busy", no corrupted running binary).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".gvisor-installer-*")
	if err != nil {
		return fmt.Errorf("creating temporary file beside %s: %w", path, err)
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(tmpName)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", tmpName, err)
	}
	// CreateTemp uses 0600; set the wanted mode explicitly (umask does not apply to Chmod).
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("setting mode of %s: %w", tmpName, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", tmpName, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", tmpName, err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return fmt.Errorf("renaming %s to %s: %w", tmpName, path, err)
	}
	ok = true
	return syncDir(dir)
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
