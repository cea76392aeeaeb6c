// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

// TestOneInstallerAtATime freezes a first install mid-copy (its temporary copy of a binary exists), then: a second
// run with a short lock timeout refuses cleanly, naming the lock and its holder, and leaves the first run's
// temporary file (and the rest of the node) alone; so do an uninstall and a plan. A run with a long timeout waits;
// once the first run resumes, both succeed and the waiting one finds nothing left to do. flock locks belong to open
// file descriptions, so the runs conflict within this one process as they do across pods.
func TestOneInstallerAtATime(t *testing.T) {
	h := newHost(t, readTestdata(t, "configs/gardener-v2.toml"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	withLog := func(o installer.Options) (installer.Options, *testutil.SyncBuffer) {
		b := &testutil.SyncBuffer{}
		o.Logger = slog.New(slog.NewTextHandler(b, nil))
		return o, b
	}

	frozen, resume := make(chan string, 1), make(chan struct{})
	var once sync.Once
	first, firstLog := withLog(installer.WithCopyHook(h.options(), func(tmp string) {
		once.Do(func() { frozen <- tmp; <-resume })
	}))
	firstDone := make(chan outcome, 1)
	go func() { res, err := installer.Install(ctx, first); firstDone <- outcome{res, err} }()
	var tmp string
	select {
	case tmp = <-frozen:
	case o := <-firstDone:
		t.Fatalf("first run ended without copying a binary: %s, %v", o.res.Summary(), o.err)
	case <-ctx.Done():
		t.Fatal("first run never reached a binary copy")
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("the first run's temporary copy does not exist while it is frozen: %v", err)
	}
	holder := string(h.read(t, installer.HolderPath))
	if want := fmt.Sprintf("pid %d on ", os.Getpid()); !strings.HasPrefix(holder, want) || !strings.Contains(holder, "install since ") {
		t.Errorf("holder file %q, want it to start with %q and name the action", holder, want)
	}

	midCopy := installertest.HashTree(t, h.root)
	for name, run := range map[string]func(o installer.Options) error{
		"install":   func(o installer.Options) error { _, err := installer.Install(ctx, o); return err },
		"uninstall": func(o installer.Options) error { _, err := installer.Uninstall(ctx, o); return err },
		"plan":      func(o installer.Options) error { _, err := planLocked(ctx, o, false); return err },
	} {
		o, _ := withLog(h.options())
		o.LockTimeout = 300 * time.Millisecond
		start := time.Now()
		err := run(o)
		if !refusal.Is(err) {
			t.Fatalf("second %s while the first run holds the lock: want a refusal, got %v", name, err)
		}
		for _, want := range []string{"refusing " + installer.LockDir, "another gvisor-installer run holds the node's lock", installer.HolderPath + " records it: " + strings.TrimSpace(holder), "within 300ms", "--lock-timeout"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("second %s: refusal %q does not say %q", name, err, want)
			}
		}
		if elapsed := time.Since(start); elapsed < 300*time.Millisecond || elapsed > 5*time.Second {
			t.Errorf("second %s gave up after %s, want about 300ms", name, elapsed)
		}
		if got := installertest.HashTree(t, h.root); !reflect.DeepEqual(midCopy, got) {
			t.Errorf("second %s changed the node while the first run was mid-copy:\nbefore %v\nafter  %v", name, midCopy, got)
		}
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("the first run's temporary copy is gone: %v", err)
	}

	waiter, waiterLog := withLog(h.options())
	waiter.LockTimeout = time.Minute
	waiterDone := make(chan outcome, 1)
	go func() { res, err := installer.Install(ctx, waiter); waiterDone <- outcome{res, err} }()
	for !strings.Contains(waiterLog.String(), "another gvisor-installer run holds the node's lock; waiting") {
		select {
		case o := <-waiterDone:
			t.Fatalf("the waiting run did not wait: %s, %v\n%s", o.res.Summary(), o.err, waiterLog)
		case <-ctx.Done():
			t.Fatal("the waiting run never logged that it waits")
		case <-time.After(10 * time.Millisecond):
		}
	}

	close(resume)
	f := <-firstDone
	if f.err != nil || len(f.res.Changed) == 0 {
		t.Fatalf("first run: %s, %v\n%s", f.res.Summary(), f.err, firstLog)
	}
	w := <-waiterDone
	if w.err != nil || w.res.Summary() != "install: unchanged; containerd not restarted" {
		t.Fatalf("waiting run: %q, %v\n%s", w.res.Summary(), w.err, waiterLog)
	}
	if !strings.Contains(waiterLog.String(), "got the node's lock") {
		t.Errorf("the waiting run does not log that it got the lock:\n%s", waiterLog)
	}
	for p := range installertest.HashTree(t, h.root) {
		if strings.Contains(p, ".gvisor-installer-") || strings.HasSuffix(p, ".gvisor-installer.lock") {
			t.Errorf("%s left behind", p)
		}
	}
}

// TestPlanWritesNothingWithTheLock: plan holds the lock shared and creates nothing, not even on a host without
// /etc/containerd.
func TestPlanWritesNothingWithTheLock(t *testing.T) {
	h := newHost(t, readTestdata(t, "configs/gardener-v2.toml"))
	before := installertest.HashTree(t, h.root)
	for _, uninstall := range []bool{false, true} {
		if _, err := planLocked(context.Background(), h.options(), uninstall); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(before, installertest.HashTree(t, h.root)) {
		t.Error("plan changed the node")
	}
	if err := os.RemoveAll(h.path("/etc/containerd")); err != nil {
		t.Fatal(err)
	}
	before = installertest.HashTree(t, h.root)
	if _, err := planLocked(context.Background(), h.options(), false); !refusal.Is(err) {
		t.Errorf("plan on a node without config.toml: want the refusal, got %v", err)
	}
	if !reflect.DeepEqual(before, installertest.HashTree(t, h.root)) {
		t.Error("plan created the lock directory")
	}
}

type outcome struct {
	res installer.Result
	err error
}
