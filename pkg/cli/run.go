// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/argcheck"
)

// Command is one of the project's long-running commands as the shared entry points (Main, Run) drive it: parse
// (Parse), Validate, Setup, then Serve until the context is cancelled.
type Command struct {
	// FlagSet holds the command's flags; PrintVersion is the bool bound to its --version flag.
	FlagSet      *pflag.FlagSet
	PrintVersion *bool
	// Validate checks the parsed options; Setup then completes them and returns the command's logger.
	Validate func() error
	Setup    func() (logr.Logger, error)
	// ProcessSetup, if set, is Main's extra process-wide setting besides the loggers (Run leaves it out).
	ProcessSetup func()
	// Serve runs the command until ctx is cancelled.
	Serve func(ctx context.Context, log logr.Logger) error
}

// Execute is a binary's main function: Main until SIGTERM or SIGINT with os.Args and stdout; an error is printed
// to stderr after the binary's name and exits with status 1. In the check mode of package argcheck
// (RUNTIME_GVISOR_CHECK_ARGS=1) it only checks the arguments (CheckArgs).
func Execute(name string, c Command) {
	var err error
	if argcheck.Enabled() {
		c.FlagSet.SetOutput(os.Stderr)
		err = CheckArgs(c.FlagSet, os.Args[1:], os.Stdout, c.PrintVersion)
	} else {
		err = Main(signals.SetupSignalHandler(), c, os.Args[1:], os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// Main is a binary's entry point: Run, plus pointing the process-wide loggers of client-go (klog) and
// controller-runtime at the command's logger, so that every line has the chosen level and format instead of being
// dropped with a warning, and ProcessSetup.
func Main(ctx context.Context, c Command, args []string, out io.Writer) error {
	return c.run(ctx, args, out, true)
}

// Run parses args like the binary and serves until ctx is cancelled. It leaves the process-wide loggers alone, so
// that it can run inside a process that already runs other components (tests, the demo). --help and --version
// print to out and return nil.
func Run(ctx context.Context, c Command, args []string, out io.Writer) error {
	return c.run(ctx, args, out, false)
}

func (c Command) run(ctx context.Context, args []string, out io.Writer, setProcessWide bool) error {
	c.FlagSet.SetOutput(out)
	if done, err := Parse(c.FlagSet, args, out, c.PrintVersion); done {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	log, err := c.Setup()
	if err != nil {
		return err
	}
	if setProcessWide {
		logf.SetLogger(log)
		klog.SetLogger(log)
		if c.ProcessSetup != nil {
			c.ProcessSetup()
		}
	}
	return c.Serve(ctx, log)
}
