// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package seedbench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// procStats are a process's memory and CPU from /proc.
type procStats struct {
	// PeakRSS is VmHWM (the highest resident set size since start), RSS is VmRSS now, and RSS splits into
	// RSSAnon (heap, stacks) and RSSFile (the binary's pages in memory), all in bytes.
	PeakRSS, RSS, RSSAnon, RSSFile int64
	// CPU is utime+stime: the CPU time the process used so far.
	CPU time.Duration
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat: 100 on every Linux architecture Go
// supports (the kernel's ABI, independent of CONFIG_HZ).
const clockTicks = 100

func readProcStats(pid int) (procStats, error) {
	var s procStats
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, fmt.Errorf("reading memory of pid %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(fields[1], 10, 64)
		switch fields[0] {
		case "VmHWM:":
			s.PeakRSS = kb << 10
		case "VmRSS:":
			s.RSS = kb << 10
		case "RssAnon:":
			s.RSSAnon = kb << 10
		case "RssFile:":
			s.RSSFile = kb << 10
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return s, fmt.Errorf("reading CPU time of pid %d: %w", pid, err)
	}
	// The command name (field 2) may contain spaces: count fields after its closing parenthesis.
	rest := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(rest) < 13 {
		return s, fmt.Errorf("/proc/%d/stat has %d fields after the name, want at least 13", pid, len(rest))
	}
	utime, _ := strconv.ParseInt(rest[11], 10, 64) // field 14
	stime, _ := strconv.ParseInt(rest[12], 10, 64) // field 15
	s.CPU = time.Duration(utime+stime) * time.Second / clockTicks
	return s, nil
}
