// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// TestWaiterLocksTheNewLockDir: on a host root without LockDir, the first run creates it and removes it again
// when it releases the lock. A second run that was waiting on it then holds the flock of an unlinked directory;
// it must lock the directory now at LockDir instead, so that a third run still has to wait for it (with the
// unlinked one it would create a new LockDir and run alongside the second).
func TestWaiterLocksTheNewLockDir(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first, _ := lockTestRun(t, root, time.Minute)
	unlockFirst, err := first.lock(ctx, "uninstall", true)
	if err != nil {
		t.Fatal(err)
	}
	second, secondLog := lockTestRun(t, root, time.Minute)
	got := make(chan func(), 1)
	go func() {
		unlock, err := second.lock(ctx, "uninstall", true)
		if err != nil {
			t.Error(err)
			unlock = func() {}
		}
		got <- unlock
	}()
	for !strings.Contains(secondLog.String(), "waiting") {
		time.Sleep(10 * time.Millisecond)
	}
	unlockFirst()
	unlockSecond := <-got

	third, _ := lockTestRun(t, root, 200*time.Millisecond)
	if _, err := third.lock(ctx, "uninstall", true); !refusal.Is(err) {
		t.Fatalf("a third run while the second holds the lock: want a refusal, got %v", err)
	}
	unlockSecond()
	if entries, err := os.ReadDir(root); err != nil || len(entries) != 0 {
		t.Errorf("the host root holds %v (%v) after every run released the lock, want nothing: the runs created etc/containerd", entries, err)
	}
}

func lockTestRun(t *testing.T, root string, timeout time.Duration) (*Run, *testutil.SyncBuffer) {
	t.Helper()
	b := &testutil.SyncBuffer{}
	r, err := Resolve(Options{HostRoot: root, LockTimeout: timeout, Logger: slog.New(slog.NewTextHandler(b, nil))}, ActionUninstall)
	if err != nil {
		t.Fatal(err)
	}
	return r, b
}
