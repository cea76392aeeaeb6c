// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// assertConfined checks that the unit runs with its confinement in effect (no capability, no new privileges, a
// seccomp filter, a read-only file system, memoryMax, a /run holding runDirs alone, or nothing for none) and
// returns its main PID (in the test's PID namespace).
func assertConfined(t testing.TB, sd *systemd, unit string, memoryMax int, runDirs ...string) int {
	t.Helper()
	p := sd.show(t, unit, "ActiveState", "SubState", "MainPID", "MemoryMax", "ProtectSystem", "NoNewPrivileges")
	if p["ActiveState"] != "active" || p["SubState"] != "running" {
		t.Fatalf("%s after node-agent started it: %v\n%s", unit, p, sd.journal(t, unit))
	}
	if p["MemoryMax"] != strconv.Itoa(memoryMax) || p["ProtectSystem"] != "strict" || p["NoNewPrivileges"] != "yes" {
		t.Errorf("%s's confinement as systemd reads the unit: %v", unit, p)
	}
	pid := sd.hostPID(t, p["MainPID"])
	status, err := execedStatus(pid)
	if err != nil {
		t.Fatalf("%s: %v\n%s", unit, err, sd.journal(t, unit))
	}
	for _, want := range []string{"CapEff:\t0000000000000000", "CapBnd:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2"} {
		if !bytes.Contains(status, []byte(want)) {
			t.Errorf("%s's running process: /proc/%d/status lacks %q:\n%s", unit, pid, want, status)
		}
	}
	// What the unit sees of /run (its mount namespace, through /proc/PID/root): runDirs and the directories leading
	// to them, and neither containerd's nor the shims' sockets nor the system bus; systemd's own (empty)
	// /run/systemd/incoming, where it would propagate mounts into the namespace, is the one other entry.
	run := fmt.Sprintf("/proc/%d/root/run", pid)
	var seen []string
	err = filepath.WalkDir(run, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := "/run" + strings.TrimPrefix(p, run)
		leads := false
		for _, d := range runDirs {
			if strings.HasPrefix(rel+"/", d+"/") {
				return filepath.SkipDir
			}
			leads = leads || strings.HasPrefix(d, rel+"/")
		}
		if rel != "/run" && !leads && rel != "/run/systemd" && rel != "/run/systemd/incoming" {
			seen = append(seen, rel)
		}
		return nil
	})
	if err != nil || len(seen) > 0 {
		t.Errorf("%s's /run holds more than %q: %v (%v)", unit, runDirs, seen, err)
	}
	return pid
}

// maxExposure is the highest `systemd-analyze security` exposure a long-running unit of ours may have, in tenths of
// systemd's 0-10 scale (its --threshold): 2.0, "OK". What the metric server keeps is root (the control sockets'
// owner), the host network (it serves the node's port) and its IP allow list.
const maxExposure = "20"

// assertExposure rates the unit file with systemd's own security analysis (offline: the unit as written) and fails
// above maxExposure.
func assertExposure(t testing.TB, unitFile string) {
	t.Helper()
	out, err := exec.Command("systemd-analyze", "security", "--offline=yes", "--no-pager", "--threshold="+maxExposure, unitFile).CombinedOutput()
	overall := regexp.MustCompile(`Overall exposure level for .*`).Find(out)
	if err != nil {
		t.Errorf("systemd-analyze security %s: %v: above %s tenths:\n%s", unitFile, err, maxExposure, out)
		return
	}
	t.Logf("systemd-analyze security: %s", overall)
}

// execedStatus is /proc/PID/status of the unit's main process once it runs the server: systemd reports a simple
// service running right after its fork, while the child (named "(<unit>)", the unit's name cut to 15 bytes) still
// applies the unit's confinement before it execs the binary, with root's capabilities until then.
func execedStatus(pid int) ([]byte, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return nil, fmt.Errorf("the unit's main process is gone: %w", err)
		}
		if !bytes.HasPrefix(status, []byte("Name:\t(")) {
			return status, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the unit's main process %d did not exec its binary within 10 s:\n%s", pid, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitRestarted waits (bounded: RestartSec 5 s and slack) until the unit runs again with a main PID other than
// old, and returns it.
func waitRestarted(t testing.TB, sd *systemd, unit string, old int) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p := sd.show(t, unit, "ActiveState", "SubState", "MainPID", "NRestarts")
		if p["SubState"] == "running" && p["MainPID"] != "0" {
			if pid := sd.hostPID(t, p["MainPID"]); pid != old {
				if p["NRestarts"] == "0" {
					t.Errorf("%s runs again without systemd counting a restart: %v", unit, p)
				}
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("systemd did not restart the killed %s within 30 s: %v\n%s", unit, p, sd.journal(t, unit))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
