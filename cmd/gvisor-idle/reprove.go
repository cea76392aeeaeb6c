// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

//go:build linux && (amd64 || arm64)

package main

import "syscall"

// defaultTimeoutSeconds bounds one proof when --timeout is not given: gvisor-installer prove bounds its own steps
// (registration wait, CRI calls, the sandbox proof and its one retry: about 3 minutes with the chart's flags), so
// this only catches a proof that hangs anyway, which would otherwise keep a stale verdict (and the pod Ready).
const defaultTimeoutSeconds = 5 * 60

// reproveConfig is reprove's command line.
type reproveConfig struct {
	interval, timeout       int64 // seconds
	provenFile, termination string
	command                 []string // the proof: an absolute path and its arguments
}

// reprove is `gvisor-idle reprove`: the idle phase of an installation pod whose node must stay proven. It runs the
// proof command at once and then every interval, sleeping in nanosleep in between as the plain idle mode does.
// After each successful proof it (re)creates --proven-file, which the container's readiness probe checks
// (`gvisor-idle ready`), so the pod is Ready only once this container has proven its node itself. On a failed
// proof it removes that file, makes sure --termination-message says why (the proof's own line if it wrote one,
// else this program's) and exits 1: the kubelet restarts the container with its back-off, the restarted container
// proves again at its start, and meanwhile the pod is not Ready with the reason in its status
// (containerStatuses[].lastState.terminated.message), which the extension's health check quotes. It never returns.
func reprove(args []string) {
	cfg, problem := parseReprove(args)
	if problem != "" {
		stderr("reprove: " + problem + "\n" + usage)
		syscall.Exit(2)
	}
	singleProc()
	if err := exitOnSignals(syscall.SIGTERM, syscall.SIGINT); err != nil {
		stderr("gvisor-idle: " + err.Error() + "\n")
		syscall.Exit(2)
	}
	// A file left by an earlier run of this container (the emptyDir outlives a restart) is not this run's verdict.
	if err := syscall.Unlink(cfg.provenFile); err != nil && err != syscall.ENOENT {
		fail(cfg, "removing the proven file "+cfg.provenFile+": "+err.Error())
	}
	for {
		if why := runChild(cfg.command, cfg.timeout); why != "" {
			fail(cfg, why)
		}
		if err := touch(cfg.provenFile); err != nil {
			fail(cfg, "the proof passed but the proven file "+cfg.provenFile+" cannot be written: "+err.Error())
		}
		sleepSeconds(cfg.interval)
	}
}

// fail ends a failed reprove: not Ready at once (the proven file removed), the reason in the termination message
// unless the proof left its own (gvisor-installer prove --termination-message writes its one-line reason, which
// says more than an exit status), the reason on stderr for the container's log, exit 1.
func fail(cfg reproveConfig, why string) {
	_ = syscall.Unlink(cfg.provenFile) // ENOENT: already gone; anything else: the exit below ends readiness anyway
	line := "gVisor sandbox proof failed: " + why + "; gvisor-idle reprove"
	if cfg.termination != "" && fileEmpty(cfg.termination) {
		if err := writeFile(cfg.termination, line+"\n"); err != nil {
			stderr("gvisor-idle: writing the termination message " + cfg.termination + ": " + err.Error() + "\n")
		}
	}
	stderr(line + "\n")
	syscall.Exit(1)
}

// parseReprove parses `--interval DUR [--timeout DUR] --proven-file FILE [--termination-message FILE] -- COMMAND
// [ARG...]` (each flag also as -flag, and as flag=value); problem is "" when it parses.
func parseReprove(args []string) (cfg reproveConfig, problem string) {
	cfg.timeout = defaultTimeoutSeconds
	var interval, timeout string
	for len(args) > 0 {
		if args[0] == "--" {
			cfg.command = args[1:]
			break
		}
		name, value, rest, ok := flagValue(args)
		if !ok {
			return cfg, "unexpected argument " + args[0] + " (the proof command follows --)"
		}
		switch name {
		case "interval":
			interval = value
		case "timeout":
			timeout = value
		case "proven-file":
			cfg.provenFile = value
		case "termination-message":
			cfg.termination = value
		default:
			return cfg, "unknown flag " + args[0]
		}
		args = rest
	}
	var ok bool
	if cfg.interval, ok = parseSeconds(interval); !ok {
		return cfg, "--interval must be a positive whole-second duration such as 5m, got \"" + interval + "\""
	}
	if timeout != "" {
		if cfg.timeout, ok = parseSeconds(timeout); !ok {
			return cfg, "--timeout must be a positive whole-second duration such as 5m, got \"" + timeout + "\""
		}
	}
	switch {
	case cfg.provenFile == "":
		return cfg, "--proven-file is required"
	case len(cfg.command) == 0:
		return cfg, "the proof command is missing (after --)"
	case cfg.command[0] == "" || cfg.command[0][0] != '/':
		return cfg, "the proof command must be an absolute path (there is no PATH lookup), got \"" + cfg.command[0] + "\""
	}
	return cfg, ""
}

// flagValue splits the first flag off args: -name=value, --name=value, or -name/--name followed by the value.
func flagValue(args []string) (name, value string, rest []string, ok bool) {
	a := args[0]
	switch {
	case len(a) > 2 && a[:2] == "--":
		a = a[2:]
	case len(a) > 1 && a[0] == '-':
		a = a[1:]
	default:
		return "", "", nil, false
	}
	for i := 0; i < len(a); i++ {
		if a[i] == '=' {
			return a[:i], a[i+1:], args[1:], true
		}
	}
	if len(args) < 2 {
		return "", "", nil, false
	}
	return a, args[1], args[2:], true
}

// touch creates (or truncates) path, mode 0644: the readiness probe only stats it.
func touch(path string) error { return writeFile(path, "") }

func writeFile(path, content string) error {
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	for b := []byte(content); len(b) > 0; {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// fileEmpty reports whether path is empty or missing: what the kubelet's fresh /dev/termination-log is until the
// proof writes its reason there.
func fileEmpty(path string) bool {
	var st syscall.Stat_t
	return syscall.Stat(path, &st) != nil || st.Size == 0
}
