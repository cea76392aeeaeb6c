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
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseSeconds(t *testing.T) {
	for in, want := range map[string]int64{"5m": 300, "5m0s": 300, "90s": 90, "1h30m0s": 5400, "1h": 3600, "2m30s": 150} {
		if got, ok := parseSeconds(in); !ok || got != want {
			t.Errorf("parseSeconds(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "0s", "0", "5", "m", "1.5s", "500ms", "5d", "-5m", "5m ", "99999999999999h"} {
		if got, ok := parseSeconds(in); ok {
			t.Errorf("parseSeconds(%q) = %d, want refused", in, got)
		}
	}
}

func TestParseReprove(t *testing.T) {
	cfg, problem := parseReprove(strings.Fields("--interval 5m -timeout=90s --proven-file=/p --termination-message /t -- /bin/prove --x=1 -- y"))
	if problem != "" || cfg.interval != 300 || cfg.timeout != 90 || cfg.provenFile != "/p" || cfg.termination != "/t" ||
		strings.Join(cfg.command, " ") != "/bin/prove --x=1 -- y" {
		t.Errorf("parsed %+v, problem %q", cfg, problem)
	}
	if cfg, _ := parseReprove(strings.Fields("--interval=1m --proven-file=/p -- /bin/true")); cfg.timeout != defaultTimeoutSeconds {
		t.Errorf("timeout without --timeout: %d, want %d", cfg.timeout, defaultTimeoutSeconds)
	}
	for args, want := range map[string]string{
		"--proven-file=/p -- /bin/true":                          "--interval",
		"--interval=0s --proven-file=/p -- /bin/true":            "--interval",
		"--interval=1m --timeout=1ms --proven-file=/p -- /bin/t": "--timeout",
		"--interval=1m -- /bin/true":                             "--proven-file is required",
		"--interval=1m --proven-file=/p":                         "proof command is missing",
		"--interval=1m --proven-file=/p --":                      "proof command is missing",
		"--interval=1m --proven-file=/p -- true":                 "absolute path",
		"--interval=1m --proven-file=/p /bin/true":               "unexpected argument /bin/true",
		"--interval=1m --bogus=1 --proven-file=/p -- /bin/true":  "unknown flag --bogus=1",
		"--interval": "unexpected argument --interval",
	} {
		if _, problem := parseReprove(strings.Fields(args)); !strings.Contains(problem, want) {
			t.Errorf("parseReprove(%q): problem %q, want it to mention %q", args, problem, want)
		}
	}
}

// proofScript is a stand-in for gvisor-installer prove, run for real by the built program: it counts its runs in
// $dir/runs, then does what $dir/next says (pass, fail-with-message, fail-silently, hang), as the real proof
// would pass, write its reason to --termination-message and exit 1, or hang.
const proofScript = `#!/bin/sh
dir=$(dirname "$0")
echo run >> "$dir/runs"
case "$(cat "$dir/next")" in
pass) echo "prove: gVisor sandbox proven"; exit 0 ;;
fail-with-message) echo "gVisor sandbox did not start: runsc is broken; gvisor-installer prove failed" > "$1"; exit 1 ;;
fail-silently) exit 3 ;;
hang) exec sleep 60 ;;
esac
exit 9
`

// reproveRun is the built program in reprove mode with proofScript as its proof, in a directory of its own.
type reproveRun struct {
	t                        *testing.T
	dir, proven, termination string
	cmd                      *exec.Cmd
	stderr                   bytes.Buffer
}

func newReproveRun(t *testing.T, bin, interval, timeout, first string) *reproveRun {
	t.Helper()
	dir := t.TempDir()
	r := &reproveRun{t: t, dir: dir, proven: filepath.Join(dir, "proven"), termination: filepath.Join(dir, "termination-log")}
	for name, content := range map[string]string{"prove": proofScript, "next": first, "termination-log": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A proven file from an earlier run of the container: it must not count for this one.
	if err := os.WriteFile(r.proven, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(bin, "reprove", "--interval="+interval, "--timeout="+timeout, "--proven-file="+r.proven,
		"--termination-message="+r.termination, "--", filepath.Join(dir, "prove"), r.termination)
	r.cmd.Stderr = &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.cmd.Process.Kill(); _ = r.cmd.Wait() })
	return r
}

func (r *reproveRun) runs() int {
	data, _ := os.ReadFile(filepath.Join(r.dir, "runs"))
	return strings.Count(string(data), "run\n")
}

func (r *reproveRun) next(what string) {
	if err := os.WriteFile(filepath.Join(r.dir, "next"), []byte(what), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *reproveRun) provenExists() bool {
	_, err := os.Stat(r.proven)
	return err == nil
}

// exit waits at most d for the program to end and returns its exit code.
func (r *reproveRun) exit(d time.Duration) int {
	r.t.Helper()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			r.t.Fatal(err)
		}
		return 0
	case <-time.After(d):
		r.t.Fatalf("still running after %v; stderr: %s", d, r.stderr.String())
		return -1
	}
}

func (r *reproveRun) terminationMessage() string {
	data, err := os.ReadFile(r.termination)
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

// TestReprove runs the built program in reprove mode with real child processes: it proves at its start and then
// every interval, is Ready (the proven file) only after its own first proof, stays small between proofs, ends with
// status 0 on SIGTERM, and on a failed proof removes the proven file and exits 1 with the reason in its termination
// message: the proof's own line if it wrote one, else its own (exit status, a timeout, a proof that does not start).
func TestReprove(t *testing.T) {
	bin := build(t)

	t.Run("passes every interval", func(t *testing.T) {
		r := newReproveRun(t, bin, "1s", "10s", "hang")
		waitFor(t, func() bool { return r.runs() == 1 }, "the proof at the start")
		if r.provenExists() {
			t.Error("the proven file of an earlier run is still there while the first proof runs")
		}
		r.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // the hanging proof is not this case's
		r.exit(5 * time.Second)

		r = newReproveRun(t, bin, "1s", "10s", "pass")
		waitFor(t, func() bool { return r.runs() >= 3 && r.provenExists() }, "three proofs and the proven file")
		pid := r.cmd.Process.Pid
		rss := procKiB(t, pid, "status", "VmRSS:")
		t.Logf("gvisor-idle reprove VmRSS %d KiB between proofs, threads %d", rss, procKiB(t, pid, "status", "Threads:"))
		if rss > 2048 {
			t.Errorf("gvisor-idle reprove holds %d KiB RSS between proofs, want at most 2048 (the plain idle mode's budget)", rss)
		}
		if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := r.exit(5 * time.Second); code != 0 {
			t.Errorf("after SIGTERM: exit %d, want 0; stderr: %s", code, r.stderr.String())
		}
	})

	t.Run("a later proof fails with its own reason", func(t *testing.T) {
		r := newReproveRun(t, bin, "1s", "10s", "pass")
		waitFor(t, func() bool { return r.provenExists() }, "the first proof")
		r.next("fail-with-message")
		if code := r.exit(10 * time.Second); code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		if r.provenExists() {
			t.Error("the proven file is still there after the failed proof")
		}
		if got, want := r.terminationMessage(), "gVisor sandbox did not start: runsc is broken; gvisor-installer prove failed\n"; got != want {
			t.Errorf("termination message %q, want the proof's own %q", got, want)
		}
	})

	for first, want := range map[string]string{
		"fail-silently": "gVisor sandbox proof failed: " + "%s exited with status 3; gvisor-idle reprove\n",
		"hang":          "gVisor sandbox proof failed: " + "%s did not finish within 1s and was killed; gvisor-idle reprove\n",
	} {
		t.Run("the first proof: "+first, func(t *testing.T) {
			r := newReproveRun(t, bin, "1m", "1s", first)
			if code := r.exit(10 * time.Second); code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if r.provenExists() {
				t.Error("the proven file of an earlier run is still there")
			}
			if got, want := r.terminationMessage(), strings.Replace(want, "%s", filepath.Join(r.dir, "prove"), 1); got != want {
				t.Errorf("termination message %q, want %q", got, want)
			}
			if !strings.Contains(r.stderr.String(), "gVisor sandbox proof failed") {
				t.Errorf("stderr (the container's log) does not say why: %q", r.stderr.String())
			}
		})
	}

	t.Run("the proof does not start", func(t *testing.T) {
		dir := t.TempDir()
		termination := filepath.Join(dir, "termination-log")
		cmd := exec.Command(bin, "reprove", "--interval=1m", "--proven-file="+filepath.Join(dir, "proven"),
			"--termination-message="+termination, "--", filepath.Join(dir, "missing"))
		if out, err := cmd.CombinedOutput(); err == nil {
			t.Errorf("a missing proof binary passed: %s", out)
		}
		data, _ := os.ReadFile(termination)
		if !strings.Contains(string(data), "could not start "+filepath.Join(dir, "missing")+": no such file or directory") {
			t.Errorf("termination message %q does not say the proof could not start", data)
		}
	})
}
