// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"gvisor.dev/gvisor/runsc/config"
	"gvisor.dev/gvisor/runsc/flag"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// refusal is one of runsc's objections: to a flag's value (flag set), or to the whole set (flag empty).
type refusal struct{ flag, value, detail string }

// at is r as a field error under flagsPath.
func (r refusal) at(flagsPath *field.Path) *field.Error {
	if r.flag == "" {
		return field.Invalid(flagsPath, r.value, r.detail)
	}
	return field.Invalid(flagsPath.Key(r.flag), r.value, r.detail)
}

// runscJudge has the flags judged by runsc itself: the flag registration and configuration validation of the
// gVisor module pinned in go.mod (GVISOR_VERSION, the release the nodes run; a test keeps them equal), the code
// every runsc command runs before anything else (runsc/cli.Run: config.RegisterFlags, flag parsing,
// config.NewFromFlags and its Validate). So a combination runsc refuses, such as file-access=shared with the
// default overlay2 root:self, is refused here too, whatever the allowlist missed. flags are those runsc gets:
// WithDefaults applied, each passed as --name=value as containerd-shim-runsc-v1 passes runsc.toml's entries.
//
// runsc/config links a few small gVisor packages (pkg/log, pkg/refs, runsc/flag, nvconf, ...) and no sandbox code,
// so it is linked in directly rather than isolated (its cost in binary size and package init: BENCHMARKS.md). Each
// call builds runsc's whole flag set, which is why Checker caches the verdict per flag set.
//
// It returns a refusal per flag runsc cannot parse, else one for the whole set when runsc's validation refuses
// it, else nil. What runsc only meets on a node (opening the debug log, /dev/kvm, the overlay's size in the
// sentry) is the allowlist's part (flags.go, paths.go).
func runscJudge(flags map[string]string) []refusal {
	fs := flag.NewFlagSet("runsc", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	config.RegisterFlags(fs)
	names := slices.Sorted(maps.Keys(flags))
	var refusals []refusal
	for _, name := range names {
		if fs.Lookup(name) == nil {
			refusals = append(refusals, refusal{name, flags[name], "runsc has no such flag"})
			continue
		}
		if err := fs.Set(name, flags[name]); err != nil {
			refusals = append(refusals, refusal{name, flags[name], fmt.Sprintf("runsc refuses the value: %v", err)})
		}
	}
	if len(refusals) > 0 {
		return refusals
	}
	if _, err := config.NewFromFlags(fs); err != nil {
		args := make([]string, 0, len(names))
		for _, name := range names {
			args = append(args, "--"+name+"="+flags[name])
		}
		return []refusal{{"", strings.Join(args, " "),
			fmt.Sprintf("runsc refuses this set of flags, and would refuse every sandbox of the pool: %v", err)}}
	}
	return nil
}
