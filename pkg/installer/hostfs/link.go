// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package hostfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SymlinkAtomic makes path a symbolic link to target: it creates the link under a temporary name beside path and
// renames it over path, so a reader (containerd resolving a shim, a shim reading runsc.toml) finds the old target
// or the new one, never none. This is how the node switches between gVisor releases in one step.
func SymlinkAtomic(target, path string) error {
	return linkAtomic(path, func(tmp string) error {
		if err := os.Symlink(target, tmp); err != nil {
			return fmt.Errorf("creating symbolic link %s -> %s: %w", tmp, target, err)
		}
		return nil
	})
}

// HardlinkAtomic makes path another name of the file src (same file system) the same way: a temporary hard link
// beside path renamed over it. It adopts a binary that is already on the node without copying it.
func HardlinkAtomic(src, path string) error {
	return linkAtomic(path, func(tmp string) error {
		if err := os.Link(src, tmp); err != nil {
			return fmt.Errorf("hard-linking %s as %s: %w", src, tmp, err)
		}
		return nil
	})
}

// linkAtomic lets create make a link under a temporary name beside path, renames it over path and syncs the
// directory; on failure nothing of it is left.
func linkAtomic(path string, create func(tmp string) error) error {
	tmp, err := tempName(path)
	if err != nil {
		return err
	}
	if err := create(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("renaming %s to %s: %w", tmp, path, err)
	}
	return syncDir(filepath.Dir(path))
}

// ReadDirIfExists is os.ReadDir that reads a missing directory as empty.
func ReadDirIfExists(dir string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return entries, err
}

// ReadlinkIfExists returns path's link target; isLink is false when path does not exist or is not a link.
func ReadlinkIfExists(path string) (target string, isLink bool, err error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("inspecting %s: %w", path, err)
	}
	if st.Mode()&fs.ModeSymlink == 0 {
		return "", false, nil
	}
	target, err = os.Readlink(path)
	if err != nil {
		return "", false, fmt.Errorf("reading link %s: %w", path, err)
	}
	return target, true, nil
}

// maxLinks bounds ResolveUnder's walk, as the kernel bounds a path lookup (ELOOP).
const maxLinks = 40

// ResolveUnder returns the host path of nodePath with every symbolic link followed as the node follows it: an
// absolute target is a node path again, so it resolves under root, not in the installer's own file system. It
// follows the final component's links only (the directories on the way are the installer's mounts).
func ResolveUnder(root, nodePath string) (string, error) {
	p := filepath.Join(root, nodePath)
	for range maxLinks {
		target, isLink, err := ReadlinkIfExists(p)
		if err != nil || !isLink {
			return p, err
		}
		if filepath.IsAbs(target) {
			p = filepath.Join(root, target)
		} else {
			p = filepath.Join(filepath.Dir(p), target)
		}
		if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
			return "", fmt.Errorf("%s: link leads outside the node's file system (%s)", nodePath, target)
		}
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", nodePath)
}

// tempName is a fresh temporary name beside path, in the pattern the installer cleans up after interrupted runs.
func tempName(path string) (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("naming a temporary file beside %s: %w", path, err)
	}
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".gvisor-installer-"+hex.EncodeToString(b[:])), nil
}
