// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

//go:build linux && (amd64 || arm64)

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/argcheck"
)

func TestReadyFileFlag(t *testing.T) {
	tests := []struct {
		args []string
		want string
		ok   bool
	}{
		{[]string{"--ready-file=/run/gvisor-installer/ready"}, "/run/gvisor-installer/ready", true},
		{[]string{"-ready-file=/r"}, "/r", true},
		{[]string{"--ready-file", "/r"}, "/r", true},
		{[]string{"-ready-file", "/r"}, "/r", true},
		{[]string{"--ready-file="}, "", true}, // refused by ready: empty
		{nil, "", false},
		{[]string{"--ready-file"}, "", false},
		{[]string{"--ready-file=/a", "--ready-file=/b"}, "", false},
		{[]string{"--ready-file", "/a", "extra"}, "", false},
		{[]string{"--readyfile=/a"}, "", false},
	}
	for _, tt := range tests {
		got, ok := readyFileFlag(tt.args)
		if got != tt.want || ok != tt.ok {
			t.Errorf("readyFileFlag(%q) = %q, %v; want %q, %v", tt.args, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	if code := run([]string{"ready", "--ready-file=" + ready}); code != 1 {
		t.Errorf("ready without the file: %d, want 1", code)
	}
	if err := os.WriteFile(ready, []byte("install: ...\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]int{
		"ready --ready-file=" + ready: 0,
		"ready --ready-file " + ready: 0,
		"ready":                       2,
		"ready --ready-file=":         2,
		"frobnicate":                  2,
		"--help":                      0,
	} {
		if code := run(strings.Fields(args)); code != want {
			t.Errorf("gvisor-idle %s: %d, want %d", args, code, want)
		}
	}
}

// TestCheckMode: with argcheck's variable the program parses its command line and does nothing else: exit 0 with
// argcheck's line for what a run accepts (the ready file is not looked at), 2 for anything else, --help included.
func TestCheckMode(t *testing.T) {
	if checkArgsEnv != argcheck.Env || checkArgsOK != argcheck.OK {
		t.Fatalf("check mode %q/%q, package argcheck's %q/%q", checkArgsEnv, checkArgsOK, argcheck.Env, argcheck.OK)
	}
	bin := build(t)
	for args, want := range map[string]int{
		"":                                0, // idle, which the check must not enter
		"ready --ready-file=/nonexistent": 0,
		"ready --ready-file /nonexistent": 0,
		"ready":                           2,
		"ready --ready-file=":             2,
		"ready --bogus=1":                 2,
		"--help":                          2,
		"frobnicate":                      2,
		// The proof command is not run (nor looked for): the charts' contract test checks it with its own binary.
		"reprove --interval=5m --proven-file=/p --termination-message=/t -- /nonexistent --flag": 0,
		"reprove --interval 5m --timeout 3m --proven-file /p -- /nonexistent":                    0,
		"reprove --interval=5m --proven-file=/p":                                                 2,
		"reprove --interval=5m -- /nonexistent":                                                  2,
		"reprove --proven-file=/p -- /nonexistent":                                               2,
		"reprove --interval=1.5s --proven-file=/p -- /nonexistent":                               2,
	} {
		cmd := exec.Command(bin, strings.Fields(args)...)
		cmd.Env = append(os.Environ(), argcheck.Env+"=1")
		out, err := cmd.Output()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != want || (want == 0) != (string(out) == argcheck.OK+"\n") {
			t.Errorf("check of %q: exit %d, stdout %q; want exit %d", args, code, out, want)
		}
	}
}

// build builds gvisor-idle as pkg/images does (without its version stamp, which this program does not have).
func build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "gvisor-idle")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestBinary runs the built program: the probe's exit codes, and the idle mode ends with status 0 on SIGTERM and
// on SIGINT, runs with GOMAXPROCS=1 whatever it was started with, and stays within 2 MiB RSS.
func TestBinary(t *testing.T) {
	bin := build(t)
	ready := filepath.Join(t.TempDir(), "ready")
	probe := func() int {
		err := exec.Command(bin, "ready", "--ready-file="+ready).Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	if code := probe(); code != 1 {
		t.Errorf("probe without the ready file: %d, want 1", code)
	}
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := probe(); code != 0 {
		t.Errorf("probe with the ready file: %d, want 0", code)
	}

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(), "GOMAXPROCS=64") // a big node: must not grow the footprint
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill() //nolint:errcheck // cleanup after a failure
			pid := cmd.Process.Pid
			waitFor(t, func() bool {
				return slices.Contains(strings.Split(readProc(t, pid, "environ"), "\x00"), "GOMAXPROCS=1")
			}, "GOMAXPROCS=1 in its environment (the re-exec)")
			time.Sleep(100 * time.Millisecond) // let the re-executed runtime finish starting
			rss := procKiB(t, pid, "status", "VmRSS:")
			t.Logf("gvisor-idle VmRSS %d KiB, threads %d", rss, procKiB(t, pid, "status", "Threads:"))
			if rss > 2048 {
				t.Errorf("gvisor-idle holds %d KiB RSS, want at most 2048", rss)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("after %v: %v, want exit status 0; stderr: %s", sig, err, stderr.String())
			}
		})
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readProc(t *testing.T, pid int, file string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), file))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// procKiB reads the number after key in /proc/<pid>/<file>.
func procKiB(t *testing.T, pid int, file, key string) int {
	t.Helper()
	for _, line := range strings.Split(readProc(t, pid, file), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			n, err := strconv.Atoi(strings.Fields(rest)[0])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/%s", key, pid, file)
	return 0
}
