// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/debuglogs"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"
)

const (
	// straceBudget is the keeper's budget in the test: a few seconds of a busy strace.
	straceBudget = 8 << 20
	// straceWait bounds the wait for the keeper's trims: strace writes megabytes per second under the pod's
	// system call loop, so the budget is passed within seconds; a minute covers a machine under load.
	straceWait = time.Minute
)

// TestStraceLogsStayWithinTheirBudget: a tenant's pod on a pool with strace makes system calls without pause; runsc
// logs each of them under the node's debug log directory, and the keeper as the pool's nodes run it (the shipped
// `gvisor-installer keep-debug-logs`) holds the directory to its budget: it truncates the sandbox's log, runsc
// writes on after the truncation note (no hole, the file stays small), the tenant's pod keeps running, and once the
// pod stops the directory is under the budget.
func TestStraceLogsStayWithinTheirBudget(t *testing.T) {
	s := newSuite(t)
	newest := func(c installertest.Containerd) bool {
		return strings.HasPrefix(c.Version, supported[len(supported)-1]+".")
	}
	s.releases(t, newest, func(t *testing.T, c installertest.Containerd) {
		logDir := filepath.Join(t.TempDir(), "runsc-logs")
		n := s.newNode(t, c, nodetest.Config{}, fmt.Sprintf("[runsc_config]\n  debug-log = %q\n  strace = \"true\"\n", logDir+"/%ID%/gvisor-%COMMAND%.log"))
		n.install(t, 1)

		var keeperLog testutil.SyncBuffer
		keeper := exec.Command(installertest.Installer(t), "keep-debug-logs", "--dir="+logDir,
			fmt.Sprintf("--budget=%d", straceBudget), "--interval=1s")
		keeper.Stderr = &keeperLog
		if err := keeper.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = keeper.Process.Signal(syscall.SIGTERM)
			if err := keeper.Wait(); err != nil {
				t.Errorf("keep-debug-logs did not end cleanly on SIGTERM: %v\n%s", err, keeperLog.String())
			}
		})

		pod, err := n.RunPod(context.Background(), nodetest.PodSpec{Handler: "runsc"})
		if err != nil {
			t.Fatal(err)
		}
		id, err := n.StartContainer(context.Background(), pod, nodetest.BusyboxImage, "dd", "if=/dev/zero", "of=/dev/null", "bs=1")
		if err != nil {
			t.Fatal(err)
		}
		// written sums the growth between samples (a trim shrinks the directory): what runsc wrote meanwhile.
		start, peak, last, written := time.Now(), int64(0), int64(0), int64(0)
		for strings.Count(keeperLog.String(), "Trimmed the runsc debug logs") < 3 {
			use := diskUse(t, logDir)
			peak, written, last = max(peak, use), written+max(0, use-last), use
			if time.Since(start) > straceWait {
				t.Fatalf("the keeper trimmed fewer than 3 times in %s (disk use %d bytes, budget %d):\n%s", straceWait, diskUse(t, logDir), straceBudget, keeperLog.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
		elapsed := time.Since(start)
		t.Logf("strace of a system call loop: runsc wrote %.1f MiB/s; the keeper trimmed 3 times in %s; the log directory peaked at %.1f MiB between passes (budget %d MiB, passes every 1 s)",
			float64(written)/(1<<20)/elapsed.Seconds(), elapsed.Round(100*time.Millisecond), float64(peak)/(1<<20), straceBudget>>20)

		if _, err := n.ExecSync(context.Background(), id, "true"); err != nil {
			t.Errorf("the tenant's pod no longer runs after its logs were trimmed: %v", err)
		}
		// runsc writes on at the new end of its O_APPEND log: the keeper's note, then runsc's strace lines, and no
		// hole. Lines runsc wrote between the truncation and the note may come first (as many as a busy node delays
		// the keeper between its two calls), and a read that falls between them finds no note yet: the next read,
		// after the keeper's pass ended, does.
		boot := filepath.Join(logDir, pod.ID, "gvisor-boot.log")
		if err := checkTrimmedLog(boot, straceWait); err != nil {
			t.Error(err)
		}

		if err := n.StopAndRemove(context.Background(), pod); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(straceWait)
		for diskUse(t, logDir) > straceBudget {
			if time.Now().After(deadline) {
				t.Fatalf("the log directory holds %d bytes %s after the pod stopped, over the budget %d:\n%s", diskUse(t, logDir), straceWait, straceBudget, keeperLog.String())
			}
			time.Sleep(200 * time.Millisecond)
		}
	})
}

// checkTrimmedLog waits until the trimmed log at path holds the keeper's note with runsc's strace lines after it;
// a hole (NUL bytes, from a writer that wrote on at its old offset) fails at once.
func checkTrimmedLog(path string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		log, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if hole := bytes.IndexByte(log, 0); hole >= 0 {
			return fmt.Errorf("%s has a hole at byte %d of %d after a trim: %q", path, hole, len(log), log[:min(len(log), 600)])
		}
		note := bytes.Index(log, []byte(debuglogs.TruncatedNote))
		if note >= 0 && bytes.Contains(log[note:], []byte("strace.go")) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s holds no keeper's note followed by runsc's strace lines after %s; it starts with %q", path, wait, log[:min(len(log), 600)])
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// diskUse is the disk the regular files under dir take.
func diskUse(t *testing.T, dir string) int64 {
	t.Helper()
	var used int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, walkErr error) error {
		if walkErr == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				used += info.Sys().(*syscall.Stat_t).Blocks * 512
			}
		}
		return nil
	})
	return used
}
