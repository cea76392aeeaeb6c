// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package cli_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/argcheck"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/cli"
)

// TestCheckArgs: the check accepts exactly what Parse would start a run with; --help and --version, with which Parse
// ends the command before it runs, fail the check.
func TestCheckArgs(t *testing.T) {
	for args, ok := range map[string]bool{
		"":                              true,
		"--port=1 --name=x":             true,
		"--port 1":                      true,
		"--port=x":                      false,
		"--bogus":                       false,
		"--port=1 stray":                false,
		"--port=1 --help":               false,
		"--version":                     false,
		"--bogus --help":                false,
		"--name=a --name=b --version=0": true,
	} {
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		fs.Int("port", 0, "")
		fs.String("name", "", "")
		printVersion := fs.Bool("version", false, "")
		var out, errOut bytes.Buffer
		fs.SetOutput(&errOut)
		err := cli.CheckArgs(fs, strings.Fields(args), &out, printVersion)
		if (err == nil) != ok || (err == nil) != (out.String() == argcheck.OK+"\n") {
			t.Errorf("CheckArgs(%q) = %v, stdout %q; want ok %v", args, err, out.String(), ok)
		}
	}
}
