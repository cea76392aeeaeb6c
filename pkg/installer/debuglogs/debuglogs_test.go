// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package debuglogs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const block = 4096

// write creates path (and its directories) holding n blocks of real data, written as runsc writes its logs.
func write(t *testing.T, path string, blocks int) *os.File {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o664)
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("%-63s\n", "I1207 12:00:00.000000 1 strace.go:1] read(0x3, ...)") // 64 bytes
	if _, err := f.Write(bytes.Repeat([]byte(line), block/len(line)*blocks)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func keeper(dir string, budget int64) *Keeper {
	return &Keeper{Dir: dir, Budget: budget, Interval: time.Second, MaxIdle: time.Hour}
}

// TestOverBudgetTruncatesTheLargestFirst: above the budget the largest logs are emptied until the rest is under
// LowWater of it; the smaller ones are untouched, and runsc's open descriptor writes on at the new end.
func TestOverBudgetTruncatesTheLargestFirst(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "sandbox-a", "gvisor-boot.log")
	mid := filepath.Join(dir, "sandbox-b", "gvisor-boot.log")
	small := filepath.Join(dir, "sandbox-b", "gvisor-create.log")
	runsc := write(t, big, 600)
	write(t, mid, 300)
	write(t, small, 10)
	p, err := keeper(dir, 800*block).Pass()
	if err != nil {
		t.Fatal(err)
	}
	if p.Files != 3 || p.Truncated != 1 || p.Freed < 590*block {
		t.Errorf("pass: %+v, want the one largest log truncated", p)
	}
	if got := size(t, mid); got != 300*block {
		t.Errorf("the second log is %d bytes, want it untouched", got)
	}
	if _, err := runsc.WriteString("after\n"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(big)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != TruncatedNote+"after\n" {
		t.Errorf("the truncated log holds %q, want the note and what runsc wrote after it (no hole)", got)
	}
}

// TestUnderBudgetNothingChanges: a pass under the budget changes no file.
func TestUnderBudgetNothingChanges(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "s", "gvisor-boot.log"), 100)
	p, err := keeper(dir, 200*block).Pass()
	if err != nil || p.Truncated+p.Removed != 0 || p.Bytes != 100*block {
		t.Errorf("pass under the budget: %+v, %v", p, err)
	}
}

// TestLinksAreNotFollowed: a symbolic link under the directory to a file elsewhere is neither counted nor truncated.
func TestLinksAreNotFollowed(t *testing.T) {
	dir, outside := t.TempDir(), filepath.Join(t.TempDir(), "kubelet.log")
	write(t, outside, 1000)
	if err := os.Symlink(outside, filepath.Join(dir, "link.log")); err != nil {
		t.Fatal(err)
	}
	p, err := keeper(dir, block).Pass()
	if err != nil || p.Files != 0 || p.Truncated != 0 {
		t.Errorf("pass: %+v, %v: want the link ignored", p, err)
	}
	if got := size(t, outside); got != 1000*block {
		t.Errorf("the link's target is %d bytes: it was touched", got)
	}
}

// TestIdleLogsAreRemovedUnlessOpen: a log nobody wrote to for MaxIdle is removed with its emptied directory, but not
// while a process holds it open (it would grow on unlinked, out of sight); an empty directory runsc just created is
// kept.
func TestIdleLogsAreRemovedUnlessOpen(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "old-sandbox", "gvisor-boot.log")
	write(t, gone, 1).Close()
	held := filepath.Join(dir, "running-sandbox", "gvisor-boot.log")
	write(t, held, 1) // stays open, as runsc holds its boot log
	k := keeper(dir, 1<<30)
	k.now = func() time.Time { return time.Now().Add(2 * k.MaxIdle) }
	p, err := k.Pass()
	if err != nil {
		t.Fatal(err)
	}
	if p.Removed != 1 {
		t.Errorf("pass: %+v, want the one closed idle log removed", p)
	}
	if _, err := os.Stat(filepath.Dir(gone)); !os.IsNotExist(err) {
		t.Errorf("the emptied sandbox directory is still there: %v", err)
	}
	fresh := filepath.Join(dir, "sandbox-being-created")
	if err := os.Mkdir(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	k.now = time.Now // runsc made the directory a moment ago and is about to open its first log in it
	if _, err := k.Pass(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a directory runsc just created (its log not open yet) was removed: %v", err)
	}
	if _, err := os.Stat(held); err != nil {
		t.Errorf("the idle log a process holds open was removed: %v", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the log directory itself was removed: %v", err)
	}
}

// TestMissingDirectoryIsAnEmptyPass: before any sandbox wrote a log the directory does not exist.
func TestMissingDirectoryIsAnEmptyPass(t *testing.T) {
	p, err := keeper(filepath.Join(t.TempDir(), "runsc"), block).Pass()
	if err != nil || p.Files != 0 {
		t.Errorf("pass over a missing directory: %+v, %v", p, err)
	}
}

// TestRunRefusesBadSettings names the setting.
func TestRunRefusesBadSettings(t *testing.T) {
	for flag, k := range map[string]*Keeper{
		"--dir":      {Budget: 1, Interval: time.Second, MaxIdle: time.Second},
		"--budget":   {Dir: "/x", Interval: time.Second, MaxIdle: time.Second},
		"--interval": {Dir: "/x", Budget: 1, MaxIdle: time.Second},
		"--max-idle": {Dir: "/x", Budget: 1, Interval: time.Second},
	} {
		if err := k.Run(context.Background()); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("%s unset: %v", flag, err)
		}
	}
}
