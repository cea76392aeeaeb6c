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
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/refusal"
)

func runAction(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) int {
	fs, f := newFlagSet(cmd, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %v\n", cmd, fs.Args())
		return 2
	}
	if f.idle && f.readyFile == "" {
		fmt.Fprintf(stderr, "%s: --idle needs --ready-file (the readiness probe checks it)\n", cmd)
		return 2
	}
	o, err := f.options(cmd, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		f.writeTerminationMessage(cmd, err, "")
		return 2
	}
	// The ready file lives in an emptyDir that survives container restarts: a restarted installer is not ready
	// until it has succeeded again.
	if f.readyFile != "" {
		if err := hostfs.Remove(f.readyFile); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}

	var res installer.Result
	switch cmd {
	case "plan":
		p, err := installer.PlanLocked(ctx, o, f.uninstall)
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
	case "install":
		res, err = installer.Install(ctx, o)
	case "uninstall":
		res, err = installer.Uninstall(ctx, o)
	}
	if err != nil {
		fmt.Fprintln(stdout, res.FailedSummary())
		return f.failWith(stderr, cmd, err, res.Verdict)
	}
	fmt.Fprintln(stdout, res.Summary())
	if f.readyFile != "" {
		if err := os.MkdirAll(filepath.Dir(f.readyFile), 0o755); err != nil {
			return f.fail(stderr, cmd, err)
		}
		if err := hostfs.WriteFileAtomic(f.readyFile, []byte(res.Summary()+"\n"), 0o644); err != nil {
			return f.fail(stderr, cmd, err)
		}
	}
	if f.idle {
		// Keep the pod running (and ready) without doing anything, in a minimal process (idle.go); SIGTERM/SIGINT
		// end it cleanly.
		return idle(ctx, o.Logger, f.idleBinary)
	}
	return 0
}

// fail reports a failed run on stderr and in the termination message and returns its exit code.
func (f *flags) fail(stderr io.Writer, cmd string, err error) int {
	return f.failWith(stderr, cmd, err, "")
}

// failWith is fail for a run that got as far as a verdict (Result.Verdict), which then leads the termination message.
func (f *flags) failWith(stderr io.Writer, cmd string, err error, verdict string) int {
	fmt.Fprintf(stderr, "%s failed: %v\n", cmd, err)
	f.writeTerminationMessage(cmd, err, verdict)
	if refusal.Is(err) {
		return 2
	}
	return 1
}

func runReady(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("ready", flag.ContinueOnError)
	fs.SetOutput(stderr)
	readyFile := fs.String("ready-file", "", "the marker file install --ready-file writes")
	if err := fs.Parse(args); err != nil || *readyFile == "" {
		fmt.Fprintln(stderr, "ready: --ready-file is required")
		return 2
	}
	if _, err := os.Stat(*readyFile); err != nil {
		fmt.Fprintf(stderr, "not ready: %v\n", err)
		return 1
	}
	return 0
}
