// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package argcheck names the parse-only mode that every binary of ours has: run with RUNTIME_GVISOR_CHECK_ARGS=1 in
// its environment, a binary parses its command line as a run would (the command, every flag and its value, no stray
// arguments; gvisor-installer also resolves its options, which needs nothing but them and the environment), prints
// "arguments accepted" and exits 0, or fails with the usage error a run with these arguments would fail with. It does
// nothing else: no file is read, nothing is connected to, nothing is served. A --help or --version, which end a run
// before it starts, fails the check too.
//
// The charts' contract test (charts/images_test.go) runs the binaries of the images built from this tree with the
// commands and args the charts render, so a chart that passes a flag its image's binary does not have fails a test
// instead of a pod. Without the variable nothing changes. This package imports nothing but os, so that gvisor-idle,
// which imports only syscall, can keep the same names (its test checks them).
package argcheck

import "os"

// Env is the environment variable that turns the check on, with the value "1".
const Env = "RUNTIME_GVISOR_CHECK_ARGS"

// OK is the line a binary prints to stdout when the check passes.
const OK = "arguments accepted"

// Enabled reports whether this process runs in the check mode.
func Enabled() bool { return os.Getenv(Env) == "1" }
