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
)

// Journal makes a run's writes and removals undoable, so that a run that fails halfway (typically: the disk fills
// up at the third of five files) leaves the node exactly as it found it instead of half installed: the backup of
// config.toml without the edit it backs up, a new shim next to the old runsc, directories nothing is in.
//
// Before each change, Prepare creates the file's missing parent directories, recording which, and keeps the file
// the change replaces or removes as a hard link beside it: a link takes no data blocks, so keeping works on a full
// disk, and putting it back is a rename, which needs none either (rewriting the old content would need the space
// that just ran out). Undo puts the kept files back, removes the files that did not exist before and the
// directories Prepare created (when empty); Commit drops the kept links. They are named like the atomic
// temporaries (".<name>.gvisor-installer-*"), so a run killed in between leaves only files the next run removes
// as stale.
type Journal struct {
	entries []journalEntry
	dirs    []string // created by Prepare, in creation order
}

type journalEntry struct {
	path string
	kept string // "": path did not exist before the change
	// unkept is why the file at path could not be kept (a filesystem without hard links); undo leaves it changed.
	unkept error
}

// Prepare makes the coming change of path undoable. It writes nothing but the kept link and missing directories.
func (j *Journal) Prepare(path string) error {
	created, err := CreateDirs(filepath.Dir(path))
	j.dirs = append(j.dirs, created...)
	if err != nil {
		return err
	}
	kept, err := keep(path)
	if errors.Is(err, errNoLinks) {
		// Rather than refusing to install where the bin dir cannot hard-link, make this one change final.
		j.entries = append(j.entries, journalEntry{path: path, unkept: err})
		return nil
	}
	if err != nil {
		return err
	}
	j.entries = append(j.entries, journalEntry{path: path, kept: kept})
	return nil
}

// Undo takes back every prepared change, newest first. The journal is empty afterwards.
func (j *Journal) Undo() error {
	var errs []error
	for i := len(j.entries) - 1; i >= 0; i-- {
		errs = append(errs, j.entries[i].undo())
	}
	errs = append(errs, RemoveCreatedDirs(j.dirs))
	*j = Journal{}
	return errors.Join(errs...)
}

// Commit keeps every prepared change: it removes the kept links. The journal is empty afterwards. An error leaves
// links the next run removes as stale temporaries; the changes themselves are in place.
func (j *Journal) Commit() error {
	var errs []error
	for _, e := range j.entries {
		if e.kept != "" {
			errs = append(errs, Remove(e.kept))
		}
	}
	*j = Journal{}
	return errors.Join(errs...)
}

// undo puts the file that was at e.path before the change back, or removes e.path when there was none.
func (e journalEntry) undo() error {
	if e.unkept != nil {
		return fmt.Errorf("%s stays changed: %w", e.path, e.unkept)
	}
	if e.kept == "" {
		if err := Remove(e.path); err != nil {
			return fmt.Errorf("removing %s, which did not exist before: %w", e.path, err)
		}
		return nil
	}
	// A change that failed left path as it was: path and the kept link are the same file, which rename(2) would
	// leave both in place.
	cur, errCur := os.Lstat(e.path)
	kept, errKept := os.Lstat(e.kept)
	if errCur == nil && errKept == nil && os.SameFile(cur, kept) {
		return Remove(e.kept)
	}
	if err := os.Rename(e.kept, e.path); err != nil {
		return fmt.Errorf("putting %s back from %s: %w", e.path, e.kept, err)
	}
	return syncDir(filepath.Dir(e.path))
}

// errNoLinks marks a file keep could not hard-link for a reason other than a full disk.
var errNoLinks = errors.New("cannot keep the previous file for undoing")

// keep hard-links path to a new name beside it and returns that name; "" when path does not exist.
func keep(path string) (string, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", fmt.Errorf("inspecting %s: %w", path, err)
	}
	for range 10 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		kept := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".gvisor-installer-kept-"+hex.EncodeToString(b[:]))
		err := os.Link(path, kept)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if isFull(err) {
			return "", explainFull(filepath.Dir(path), fmt.Errorf("keeping %s as %s until the run has made all its changes: %w", path, kept, err))
		}
		if err != nil {
			return "", fmt.Errorf("%w: keeping %s as %s: %w", errNoLinks, path, kept, err)
		}
		return kept, nil
	}
	return "", fmt.Errorf("keeping %s: no free name beside it", path)
}
