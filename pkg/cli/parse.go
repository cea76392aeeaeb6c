// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package cli holds what the project's pflag-based commands (the extension controller, the admission webhook
// server) share in front of their own work: parsing, --help, stray arguments and --version (this file), and the
// entry points that parse, validate, point the process-wide loggers at the command's and serve (run.go).
package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// Parse parses args with fs. done is true when the command has nothing more to do: --help printed the usage, or
// *printVersion (bound to --version in fs) printed version.Version to out. A positional argument is an error:
// these commands take only flags.
func Parse(fs *pflag.FlagSet, args []string, out io.Writer, printVersion *bool) (done bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil
		}
		return true, err
	}
	if fs.NArg() > 0 {
		return true, fmt.Errorf("unexpected arguments %q: this command takes only flags (see --help)", fs.Args())
	}
	if *printVersion {
		_, err := fmt.Fprintln(out, version.Version)
		return true, err
	}
	return false, nil
}
