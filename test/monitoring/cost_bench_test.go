// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package monitoring_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkMetricServerCost measures the per-node cost of the metric server (BENCHMARKS.md, "Sandbox metrics"):
// its VmRSS and Pss, the CPU time and wall time of one scrape, with 0, 1, 5 and 10 idle gVisor pods on a real
// node (containerd 2.4). Each size scrapes 10 times after a warm-up scrape; RSS is read after the last scrape.
// Run with -benchtime 1x (the node and pods are the expensive part, not the loop).
func BenchmarkMetricServerCost(b *testing.B) {
	s := newSuite(b, "2.4")
	n := s.installedNode(b, "2.4", runscConfigWithMetricServer)
	ms := s.startMetricServer(b, n, metricServerFlag)
	pods := 0
	for _, size := range []int{0, 1, 5, 10} {
		for ; pods < size; pods++ {
			startPod(b, n, "exec sleep 3600")
		}
		b.Run(fmt.Sprintf("sandboxes=%d", size), func(b *testing.B) {
			ms.waitFor(b, func(samples []sample) bool {
				r := find(samples, "runsc_num_sandboxes_running", nil)
				return len(r) == 1 && int(r[0].value) == size
			})
			const scrapes = 10
			cpu0 := cpuTicks(b, ms.cmd.Process.Pid)
			start := time.Now()
			for i := 0; i < b.N*scrapes; i++ {
				ms.scrape(b)
			}
			wall := time.Since(start)
			cpu := cpuTicks(b, ms.cmd.Process.Pid) - cpu0
			rss, pss := memory(b, ms.cmd.Process.Pid)
			b.ReportMetric(float64(rss)/1024, "VmRSS-MiB")
			b.ReportMetric(float64(pss)/1024, "Pss-MiB")
			// USER_HZ is 100 on Linux: a tick is 10 ms.
			b.ReportMetric(float64(cpu)*10/float64(b.N*scrapes), "cpu-ms/scrape")
			b.ReportMetric(float64(wall.Milliseconds())/float64(b.N*scrapes), "wall-ms/scrape")
		})
	}
}

// cpuTicks is utime+stime of pid in clock ticks (/proc/PID/stat fields 14 and 15).
func cpuTicks(b testing.TB, pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The command name (field 2) may hold spaces; the fields after it start behind the last ')'.
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// memory is VmRSS (status) and Pss (smaps_rollup) of pid in KiB.
func memory(b testing.TB, pid int) (rss, pss int64) {
	return kib(b, fmt.Sprintf("/proc/%d/status", pid), "VmRSS:"), kib(b, fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:")
}

func kib(b testing.TB, file, key string) int64 {
	raw, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			return v
		}
	}
	b.Fatalf("%s has no %s", file, key)
	return 0
}
