// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// residentPages counts the pages of path that are in the page cache (mincore on a read-only mapping, which
// itself faults nothing in).
func residentPages(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = unix.Munmap(m) }()
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	// x/sys has no wrapper for mincore(2).
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestEvictFromPageCache: a file just written (dirty, fully cached) has no page in the page cache afterwards,
// and its content is unchanged.
func TestEvictFromPageCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "binary")
	data := bytes.Repeat([]byte("gvisor!\n"), 1<<17) // 1 MiB
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if n := residentPages(t, path); n == 0 {
		t.Skip("the file system does not keep written pages in the page cache; nothing to evict")
	}
	if err := evictFromPageCache(path); err != nil {
		t.Fatal(err)
	}
	if n := residentPages(t, path); n != 0 {
		t.Errorf("%d pages of %s still in the page cache after evictFromPageCache", n, path)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Error("the content changed")
	}
}
