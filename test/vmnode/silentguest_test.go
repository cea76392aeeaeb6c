// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// testSilentLimit is the silent guest's limit here: a paused guest never writes, and a running one writes its
// kernel's first warnings a few seconds after QEMU's start, even on a loaded machine.
const testSilentLimit = 30 * time.Second

// TestSilentGuestStartedAgain: a guest that writes nothing to its console (QEMU paused with -S: its kernel never
// runs, as in a stalled emulation) is started again once the limit passes, and the node then boots; a guest silent
// on every start is Boot's error, naming it.
func TestSilentGuestStartedAgain(t *testing.T) {
	disk := realcomponents.VMNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()

	_, err := bootWith(ctx, Config{Disk: disk}, startPolicy{silentLimit: testSilentLimit, paused: silentBootStarts})
	if !errors.Is(err, errSilentGuest) {
		t.Fatalf("Boot of a guest silent on all %d starts: %v, want %v", silentBootStarts, err, errSilentGuest)
	}

	var log strings.Builder
	n, err := bootWith(ctx, Config{Disk: disk, Log: &log}, startPolicy{silentLimit: testSilentLimit, paused: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := n.Stop(); err != nil {
			t.Error(err)
		}
	}()
	if n.qemuStarts != 2 || n.Boots() != 1 {
		t.Errorf("QEMU started %d times for %d boots, want 2 for 1", n.qemuStarts, n.Boots())
	}
	if !strings.Contains(log.String(), "QEMU started again") {
		t.Errorf("the restart is not in the node's log:\n%s", log.String())
	}
	console := n.Console(1000)
	if got := strings.Count(console, "--- [vmnode] boot 1: QEMU started at"); got != 2 {
		t.Errorf("the console has %d markers of boot 1, want 2 (the silent start's, the restart's):\n%s", got, console)
	}
	if out, err := n.Run(ctx, "cat /proc/1/comm"); err != nil || strings.TrimSpace(out) != "systemd" {
		t.Errorf("the restarted node's PID 1: %q, %v; want systemd", out, err)
	}
}
