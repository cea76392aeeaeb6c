// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package cli holds what the project's pflag-based commands (the extension controller, the admission webhook
// server) share in front of their own work: parsing, --help, stray arguments, --version and the check mode of
// package argcheck (this file), and the entry points that parse, validate, point the process-wide loggers at the
// command's and serve (run.go).
package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/argcheck"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// Parse parses args with fs. done is true when the command has nothing more to do: --help printed the usage, or
// *printVersion (bound to --version in fs) printed version.Version to out. A positional argument is an error:
// these commands take only flags.
func Parse(fs *pflag.FlagSet, args []string, out io.Writer, printVersion *bool) (done bool, err error) {
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil
		}
		return true, err
	}
	if *printVersion {
		_, err := fmt.Fprintln(out, version.Version)
		return true, err
	}
	return false, nil
}

// CheckArgs is the check mode of package argcheck: it parses args with fs as Parse does and prints argcheck.OK to out
// if a run would start with them. --help and --version (bound to *printVersion) are errors here: with them the
// command would print and exit instead of running.
func CheckArgs(fs *pflag.FlagSet, args []string, out io.Writer, printVersion *bool) error {
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return errors.New("the arguments ask for --help: the command would print its usage and exit instead of running")
		}
		return err
	}
	if *printVersion {
		return errors.New("the arguments ask for --version: the command would print its version and exit instead of running")
	}
	_, err := fmt.Fprintln(out, argcheck.OK)
	return err
}

// parseFlags parses args with fs; a positional argument is an error: these commands take only flags.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: this command takes only flags (see --help)", fs.Args())
	}
	return nil
}
