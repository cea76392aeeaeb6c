// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// evictFromPageCache writes the file at path to disk and drops its pages from the page cache, so that a process
// started from it reads its binary as a seed's container runtime does: from disk, through readahead.
//
// Why: a binary's resident file pages (half of a controller's RSS) depend on how its pages came into the page
// cache, not only on what the process touches. The same bytes measured 64.6 MB peak RSS for `--help` right after
// `go build` wrote them and 54.3-56.5 MB when copied or read back from disk (linux 6.18, ext4): the linker writes
// through a memory map and leaves the cache in a layout that faults in more pages around each touched one. Without
// this, whichever controller the benchmark has just built is charged several MB that no seed ever sees.
func evictFromPageCache(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("opening %s to drop it from the page cache: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil { // dirty pages are not dropped: write them first
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("dropping %s from the page cache (fadvise DONTNEED): %w", path, err)
	}
	return nil
}
