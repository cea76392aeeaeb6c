// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/hostfs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// runAction is install, uninstall and plan: parse, resolve (installer.Resolve checks the options, once), then plan
// or act.
func runAction(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) int {
	f, code := parseAction(cmd, args, stderr)
	if f == nil {
		return code
	}
	// The ready file lives in an emptyDir that survives container restarts: a restarted installer is not ready
	// until it has succeeded again, whatever it then fails at.
	if f.readyFile != "" {
		if err := hostfs.Remove(f.readyFile); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	run, err := f.resolve(cmd, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		f.writeTerminationMessage(terminationLine(cmd, err, ""))
		return 2
	}
	if cmd == "plan" {
		return f.printPlan(ctx, run, stdout, stderr)
	}
	return f.act(ctx, cmd, run, stdout, stderr)
}

// parseAction parses the command line; nil flags mean done, with the exit code (0 for -h).
func parseAction(cmd string, args []string, stderr io.Writer) (*flags, int) {
	fs, f := newFlagSet(cmd, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0
		}
		return nil, 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %v\n", cmd, fs.Args())
		return nil, 2
	}
	if f.idle && f.readyFile == "" {
		fmt.Fprintf(stderr, "%s: --idle needs --ready-file (the readiness probe checks it)\n", cmd)
		return nil, 2
	}
	return f, 0
}

// printPlan prints every step of the plan and a last line saying how much changes.
func (f *flags) printPlan(ctx context.Context, run *installer.Run, stdout, stderr io.Writer) int {
	p, err := run.PlanLocked(ctx)
	if err != nil {
		return f.fail(stderr, "plan", err)
	}
	for _, step := range p.Steps() {
		fmt.Fprintln(stdout, step)
	}
	restart := "no containerd restart"
	if p.RestartNeeded() {
		restart = "containerd restart"
	}
	if len(p.Changes) == 0 {
		fmt.Fprintln(stdout, "plan: unchanged; "+restart)
	} else {
		fmt.Fprintf(stdout, "plan: %d changes; %s\n", len(p.Changes), restart)
	}
	return 0
}

// act installs or uninstalls, then marks success where the pod shows it: the ready file (the readiness probe)
// and the termination message (package report's line: versions and foreign shims, in the pod's status). With
// --idle it then idles.
func (f *flags) act(ctx context.Context, cmd string, run *installer.Run, stdout, stderr io.Writer) int {
	res, err := run.Do(ctx)
	if err != nil {
		fmt.Fprintln(stdout, res.FailedSummary())
		return f.failWith(stderr, cmd, err, res.Verdict)
	}
	fmt.Fprintln(stdout, res.Summary())
	if err := f.writeReadyFile(res); err != nil {
		return f.fail(stderr, cmd, err)
	}
	// The report, also in the log (kubectl logs) for a pod whose status does not keep it (the installer idles in
	// its container, which never terminates).
	line := res.Report().String()
	run.Logger().Info(line, "step", "report")
	f.writeTerminationMessage(line)
	if f.idle {
		// Keep the pod running (and ready) without doing anything, in a minimal process (idle.go); SIGTERM/SIGINT
		// end it cleanly.
		return idle(ctx, run.Logger(), f.idleBinary)
	}
	return 0
}

// writeReadyFile writes --ready-file (if set) with the run's summary.
func (f *flags) writeReadyFile(res installer.Result) error {
	if f.readyFile == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(f.readyFile), 0o755); err != nil {
		return err
	}
	return hostfs.WriteFileAtomic(f.readyFile, []byte(res.Summary()+"\n"), 0o644)
}

// fail reports a failed run on stderr and in the termination message and returns its exit code.
func (f *flags) fail(stderr io.Writer, cmd string, err error) int {
	return f.failWith(stderr, cmd, err, "")
}

// failWith is fail for a run that got as far as a verdict (Result.Verdict), which then leads the termination message.
func (f *flags) failWith(stderr io.Writer, cmd string, err error, verdict string) int {
	fmt.Fprintf(stderr, "%s failed: %v\n", cmd, err)
	f.writeTerminationMessage(terminationLine(cmd, err, verdict))
	if refusal.Is(err) {
		return 2
	}
	return 1
}

func runReady(args []string, stderr io.Writer) int {
	readyFile, ok := parseReady(args, stderr)
	if !ok {
		return 2
	}
	if _, err := os.Stat(readyFile); err != nil {
		fmt.Fprintf(stderr, "not ready: %v\n", err)
		return 1
	}
	return 0
}

// parseReady parses ready's command line: --ready-file, required.
func parseReady(args []string, stderr io.Writer) (string, bool) {
	fs := flag.NewFlagSet("ready", flag.ContinueOnError)
	fs.SetOutput(stderr)
	readyFile := fs.String("ready-file", "", "the marker file install --ready-file writes")
	if err := fs.Parse(args); err != nil || *readyFile == "" {
		fmt.Fprintln(stderr, "ready: --ready-file is required")
		return "", false
	}
	return *readyFile, true
}
