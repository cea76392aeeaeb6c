// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package hostfs

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// TestJournalUndo: a replaced file, a removed one and a new one in new directories, then Undo: the tree is as it
// was (contents, modes, no kept link, no created directory), and the replaced file is back as the same inode (a
// rename of the kept link: undoing needs no space on a full disk).
func TestJournalUndo(t *testing.T) {
	dir := t.TempDir()
	replaced, removed, created := filepath.Join(dir, "config.toml"), filepath.Join(dir, "runsc"), filepath.Join(dir, "a/b/new")
	writeFile(t, replaced, "old config", 0o644)
	writeFile(t, removed, "old runsc", 0o755)
	before := tree(t, dir)
	oldInode := inode(t, replaced)

	j := &Journal{}
	for _, p := range []string{replaced, removed, created} {
		if err := j.Prepare(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteFileAtomic(replaced, []byte("new config"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Remove(removed); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(created, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := j.Undo(); err != nil {
		t.Fatal(err)
	}
	if after := tree(t, dir); !reflect.DeepEqual(after, before) {
		t.Fatalf("after Undo the tree is\n%v\nwant\n%v", after, before)
	}
	if inode(t, replaced) != oldInode {
		t.Errorf("Undo rewrote %s instead of putting the kept file back", replaced)
	}
}

// TestJournalUndoOfAChangeThatFailed: Prepare, then the write fails (nothing written): Undo leaves the file and no
// kept link (the link and the file are the same inode, which a rename would leave both in place).
func TestJournalUndoOfAChangeThatFailed(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.toml")
	writeFile(t, p, "config", 0o644)
	before := tree(t, dir)
	j := &Journal{}
	if err := j.Prepare(p); err != nil {
		t.Fatal(err)
	}
	if err := j.Undo(); err != nil {
		t.Fatal(err)
	}
	if after := tree(t, dir); !reflect.DeepEqual(after, before) {
		t.Fatalf("after Undo the tree is %v, want %v", after, before)
	}
}

// TestJournalCommit: the changes stay, the kept links and nothing else go, created directories stay.
func TestJournalCommit(t *testing.T) {
	dir := t.TempDir()
	replaced, created := filepath.Join(dir, "config.toml"), filepath.Join(dir, "conf.d/drop-in.toml")
	writeFile(t, replaced, "old", 0o644)
	j := &Journal{}
	for _, p := range []string{replaced, created} {
		if err := j.Prepare(p); err != nil {
			t.Fatal(err)
		}
		if err := WriteFileAtomic(p, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"config.toml": "-rw-r--r-- new", "conf.d": "drwxr-xr-x", "conf.d/drop-in.toml": "-rw-r--r-- new"}
	if got := tree(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("after Commit the tree is %v, want %v", got, want)
	}
}

// TestRemoveCreatedDirsKeepsNonEmpty: of the directories CreateDirs made, those a file went into stay.
func TestRemoveCreatedDirsKeepsNonEmpty(t *testing.T) {
	dir := t.TempDir()
	created, err := CreateDirs(filepath.Join(dir, "var/bin/gvisor-bin"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "var"), filepath.Join(dir, "var/bin"), filepath.Join(dir, "var/bin/gvisor-bin")}; !reflect.DeepEqual(created, want) {
		t.Fatalf("CreateDirs returned %v, want %v", created, want)
	}
	writeFile(t, filepath.Join(dir, "var/bin/runsc"), "runsc", 0o755)
	if err := RemoveCreatedDirs(created); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"var": "drwxr-xr-x", "var/bin": "drwxr-xr-x", "var/bin/runsc": "-rwxr-xr-x runsc"}
	if got := tree(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("tree %v, want %v", got, want)
	}
}

func writeFile(t *testing.T, p, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil { // umask
		t.Fatal(err)
	}
}

// tree maps every entry under dir to its mode and, for files, content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := e.Info()
		if err != nil {
			return err
		}
		out[rel] = info.Mode().String()
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] += " " + string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}
