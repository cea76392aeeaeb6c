// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/argcheck"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
)

// checkArgs is the check mode of package argcheck (RUNTIME_GVISOR_CHECK_ARGS=1): the command line is parsed as a run
// parses it and, for install, uninstall and plan, the options are resolved as a plan resolves them (which reads no
// file and builds no API client), then argcheck.OK goes to stdout and the exit code is 0; otherwise 2, the exit code
// of a run's usage error. -h and version fail too: with them the installer prints and exits instead of running.
func checkArgs(args []string, stdout, stderr io.Writer) int {
	if err := checkCommandLine(args, stderr); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	fmt.Fprintln(stdout, argcheck.OK)
	return 0
}

func checkCommandLine(args []string, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch cmd := args[0]; cmd {
	case "install", "plan", "uninstall":
		f, code := parseAction(cmd, args[1:], stderr)
		if f == nil {
			return parseFailure(cmd, code)
		}
		o, err := f.options(cmd, io.Discard)
		if err != nil {
			return err
		}
		action := installer.Action(cmd)
		if cmd == "plan" {
			action = installer.ActionInstall
			if f.uninstall {
				action = installer.ActionUninstall
			}
		}
		_, err = installer.ResolvePlan(o, action)
		return err
	case "ready":
		if _, ok := parseReady(args[1:], stderr); !ok {
			return errors.New("ready: the arguments do not parse")
		}
		return nil
	case "prove":
		if f, code := parseProve(args[1:], stderr); f == nil {
			return parseFailure(cmd, code)
		}
		return nil
	case "deactivate":
		if f, code := parseDeactivate(args[1:], stderr); f == nil {
			return parseFailure(cmd, code)
		}
		return nil
	case "keep-debug-logs":
		if k, code := parseKeepDebugLogs(args[1:], stderr); k == nil {
			return parseFailure(cmd, code)
		}
		return nil
	}
	return fmt.Errorf("%q runs nothing: %s", args[0], usage)
}

func parseFailure(cmd string, code int) error {
	if code == 0 {
		return fmt.Errorf("%s: the arguments ask for -h: the installer would print its usage and exit instead of running", cmd)
	}
	return fmt.Errorf("%s: the arguments do not parse", cmd)
}
