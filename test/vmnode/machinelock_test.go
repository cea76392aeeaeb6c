// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWaitLockOneHolder: a second node waits while the first holds the machine, gives up with ctx naming the lock
// file, and gets it once the first releases it.
func TestWaitLockOneHolder(t *testing.T) {
	name := filepath.Join(t.TempDir(), machineLockName)
	var log []string
	logf := func(format string, args ...any) { log = append(log, fmt.Sprintf(format, args...)) }
	ctx := context.Background()

	unlock, err := waitLock(ctx, name, logf)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 3*machineLockPoll)
	defer cancel()
	if _, err := waitLock(short, name, logf); err == nil || !strings.Contains(err.Error(), name) {
		t.Fatalf("a second holder while the first holds the lock: %v, want the wait's end naming %s", err, name)
	}
	if len(log) == 0 || !strings.Contains(log[0], "waiting for the machine's other VM node") {
		t.Errorf("the wait was not logged: %q", log)
	}

	done := make(chan error, 1)
	go func() {
		second, err := waitLock(ctx, name, logf)
		if err == nil {
			second()
		}
		done <- err
	}()
	time.Sleep(machineLockPoll / 2)
	unlock()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * machineLockPoll):
		t.Fatal("the waiting holder did not get the lock after the first released it")
	}
}
