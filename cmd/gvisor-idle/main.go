// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

//go:build linux && (amd64 || arm64)

// Command gvisor-idle is the idle phase of the installation DaemonSet's pod, which stays on every node of a gVisor
// pool for the pool's life. `gvisor-installer install|uninstall --idle` writes its ready file and then replaces
// itself with this program (execve: same PID, same container), so the pod's idle cost is this program's instead of
// the installer's, which initialises client-go and the rest at package init (BENCHMARKS.md, "installation pod at
// idle").
//
//	gvisor-idle                          wait for SIGTERM or SIGINT, then exit 0
//	gvisor-idle ready --ready-file FILE  readiness probe: exit 0 iff FILE exists (1 if not, 2 on a usage error)
//	gvisor-idle reprove --interval DUR --proven-file FILE [--timeout DUR] [--termination-message FILE] -- PROOF...
//	                                     idle, but run PROOF (gvisor-installer prove) at once and every DUR; exit 1
//	                                     when it fails (reprove.go)
//
// The probe runs every 10 s on every node, so it is this small program too, not the installer. With
// RUNTIME_GVISOR_CHECK_ARGS=1 (package argcheck's check mode) it only parses its command line (check).
//
// Every byte of this program is resident on every node of the pool, so it imports nothing but syscall (and
// unsafe): package os costs resident memory on every node and os/signal needs it (BENCHMARKS.md). SIGTERM/SIGINT end it through a signal handler of its own (signal.go). Build it with
// -ldflags "-s -w". linux/amd64 and linux/arm64 only (the handler is assembly).
package main

import "syscall"

const usage = "usage: gvisor-idle                          wait for SIGTERM or SIGINT, then exit 0\n" +
	"       gvisor-idle ready --ready-file FILE    exit 0 iff FILE exists (readiness probe)\n" +
	"       gvisor-idle reprove --interval DUR --proven-file FILE [--timeout DUR] [--termination-message FILE] -- PROOF [ARG...]\n" +
	"                                              run PROOF now and every DUR (5m, 90s), create FILE after each success;\n" +
	"                                              on a failure remove FILE, write why to the termination message, exit 1\n"

// checkArgsEnv and checkArgsOK are package argcheck's Env and OK (the check mode every binary of ours has), spelled
// out here because this program imports nothing but syscall; a test keeps them equal.
const (
	checkArgsEnv = "RUNTIME_GVISOR_CHECK_ARGS"
	checkArgsOK  = "arguments accepted"
)

func main() {
	args, err := cmdline()
	if err != nil {
		stderr("gvisor-idle: reading the command line: " + err.Error() + "\n")
		syscall.Exit(2)
	}
	if v, _ := syscall.Getenv(checkArgsEnv); v == "1" {
		syscall.Exit(check(args[1:]))
	}
	if len(args) <= 1 { // argv[0] only
		idle()
	}
	if args[1] == "reprove" {
		reprove(args[2:])
	}
	syscall.Exit(run(args[1:]))
}

// run is the command line without the idle mode (which never returns), for tests.
func run(args []string) int {
	if len(args) == 0 {
		stderr(usage)
		return 2
	}
	switch args[0] {
	case "ready":
		return ready(args[1:])
	case "-h", "-help", "--help", "help":
		stderr(usage)
		return 0
	}
	stderr("gvisor-idle: unknown command " + args[0] + "\n" + usage)
	return 2
}

// check is the check mode: the command line parsed as run parses it (no arguments: idle; ready and its flag;
// reprove and its flags, the proof command only as far as being an absolute path, since this program does not run
// it here: charts/images_test.go checks that command line against its own binary), no file looked at; 0 and
// checkArgsOK on stdout if it parses, 2 (a usage error) otherwise.
func check(args []string) int {
	if len(args) > 0 && args[0] == "reprove" {
		if _, problem := parseReprove(args[1:]); problem != "" {
			stderr("gvisor-idle: the arguments do not parse: " + problem + "\n" + usage)
			return 2
		}
	} else if len(args) > 0 {
		if file, ok := readyFileFlag(args[1:]); args[0] != "ready" || !ok || file == "" {
			stderr("gvisor-idle: the arguments do not parse\n" + usage)
			return 2
		}
	}
	_, _ = syscall.Write(1, []byte(checkArgsOK+"\n"))
	return 0
}

// ready checks the ready file. Its flag syntax is gvisor-installer ready's (Go's flag package: -ready-file or
// --ready-file, the value after = or as the next argument).
func ready(args []string) int {
	file, ok := readyFileFlag(args)
	if !ok || file == "" {
		stderr("ready: --ready-file is required\n" + usage)
		return 2
	}
	var st syscall.Stat_t
	if err := syscall.Stat(file, &st); err != nil {
		stderr("not ready: stat " + file + ": " + err.Error() + "\n")
		return 1
	}
	return 0
}

// readyFileFlag parses exactly one --ready-file flag and nothing else.
func readyFileFlag(args []string) (string, bool) {
	for _, name := range []string{"-ready-file", "--ready-file"} {
		switch {
		case len(args) == 1 && len(args[0]) > len(name) && args[0][:len(name)+1] == name+"=":
			return args[0][len(name)+1:], true
		case len(args) == 2 && args[0] == name:
			return args[1], true
		}
	}
	return "", false
}

// stderr writes s to fd 2; a failed write to stderr has nowhere left to be reported, so its error is dropped.
func stderr(s string) { _, _ = syscall.Write(2, []byte(s)) }
