// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package hostfs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFileAtomicReplacesTheInode: the new content arrives by rename, so a process that has the old file open
// (or executes it) keeps reading the old content, and no temporary file is left behind.
func TestWriteFileAtomicReplacesTheInode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "runsc")
	if err := WriteFileAtomic(p, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before, _ := f.Stat()
	if err := WriteFileAtomic(p, []byte("new content"), 0o755); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, _ := f.ReadAt(buf, 0)
	if string(buf[:n]) != "old" {
		t.Errorf("open file now reads %q: the write went into the existing inode", buf[:n])
	}
	after, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if before.Sys().(*syscall.Stat_t).Ino == after.Sys().(*syscall.Stat_t).Ino {
		t.Errorf("same inode after an atomic write")
	}
	if after.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", after.Mode())
	}
	if same, err := SameContent(p, []byte("new content"), 0o755); !same || err != nil {
		t.Errorf("SameContent = %v, %v", same, err)
	}
	if same, _ := SameContent(p, []byte("new content"), 0o644); same {
		t.Errorf("SameContent ignores the mode")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestCopyFileAtomicChecksTheSum: a source that changed after verification never lands on the node.
func TestCopyFileAtomicChecksTheSum(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	if err := os.WriteFile(src, []byte("verified"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, size, err := HashFile(src)
	if err != nil || size != 8 {
		t.Fatal(sum, size, err)
	}
	if err := CopyFileAtomic(src, dst, sum, 0o755); err != nil {
		t.Fatal(err)
	}
	if same, err := SameFile(dst, size, sum, 0o755); !same || err != nil {
		t.Fatalf("SameFile after copy = %v, %v", same, err)
	}
	if err := os.WriteFile(src, []byte("swapped!"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CopyFileAtomic(src, dst, sum, 0o755); err == nil {
		t.Fatal("copied a source that no longer matches its verified checksum")
	}
	if data, _ := os.ReadFile(dst); string(data) != "verified" {
		t.Errorf("dst = %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("temporary file left behind: %v", entries)
	}
}
