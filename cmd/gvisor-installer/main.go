// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command gvisor-installer puts gVisor on a node and registers runsc with containerd; it is the program of the
// installation DaemonSet (see package pkg/installer for what it guarantees).
//
//	gvisor-installer install   --host-root DIR --source DIR [--bin-dir PATH] [--runsc-config FILE] [--release-sums DIR] [--restart=systemd|none] [--idle --ready-file FILE] [--label-node]
//	gvisor-installer uninstall --host-root DIR [--bin-dir PATH] [--restart=systemd|none] [--idle --ready-file FILE] [--label-node]
//	gvisor-installer plan      (the flags of install, or --uninstall: print what would change, change nothing)
//	gvisor-installer ready     --ready-file FILE (readiness probe: exit 0 iff FILE exists)
//	gvisor-installer prove     [--host-root DIR] [--bin-dir PATH] [--runsc-config FILE] [--activate] (the sandbox proof; with --activate the OSC mode's oneshot unit: prove.go)
//	gvisor-installer deactivate [--host-root DIR] [--bin-dir PATH] [--unless-enabled UNIT] (the OSC mode's removal of the release layout: deactivate.go)
//	gvisor-installer keep-debug-logs --dir DIR [--budget BYTES] [--interval DUR] [--max-idle DUR] (runsc's debug logs held to a budget: keepdebuglogs.go)
//
// With --idle (DaemonSet mode) install and uninstall write --ready-file after succeeding and then wait for
// SIGTERM/SIGINT, so the pod is Ready exactly when this node is done; a failure exits (the kubelet retries).
//
// --label-node (the scheduling readiness gate, docs/readiness-gate.md) labels the node named by $NODE_NAME with the
// pod's service account once runsc is verified (a failure to label fails the install), and uninstall removes the
// label before it unregisters runsc.
//
// With --restart=systemd install reads containerd's version over CRI first and refuses one older than this gVisor
// release supports (pkg/installer/containerdversion), and --prove-sandbox (default true) starts a real gVisor sandbox
// through the CRI after registering runsc, on every run: install succeeds only if it starts, otherwise runsc is
// unregistered again. install, uninstall and plan hold the node's lock (flock on <host-root>/etc/containerd) for the
// whole run; a second run waits up to --lock-timeout. --termination-message=/dev/termination-log writes one line
// where the kubelet shows it in the pod's status: on success the run's report (gVisor and containerd versions,
// foreign shims in the bin dir; pkg/nodecontract), on failure the reason.
//
// The command line only parses: installer.Resolve checks the options, once, and says which flags do not fit. With
// RUNTIME_GVISOR_CHECK_ARGS=1 (package argcheck) it checks its command line and does nothing else (check.go).
//
// Exit codes: 0 success, 1 failure while acting (containerd config rolled back if it was the cause),
// 2 refusal or usage error (nothing on the host changed).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/argcheck"
)

func main() {
	if argcheck.Enabled() {
		os.Exit(checkArgs(os.Args[1:], os.Stdout, os.Stderr)) // check.go
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: gvisor-installer install|uninstall|plan|ready|prove|deactivate|keep-debug-logs [flags]; gvisor-installer <command> -h lists the flags`

// run is main without process globals, so tests drive the real command line.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch args[0] {
	case "install", "plan", "uninstall":
		return runAction(ctx, args[0], args[1:], stdout, stderr)
	case "ready":
		return runReady(args[1:], stderr)
	case "prove":
		return runProve(ctx, args[1:], stdout, stderr)
	case "deactivate":
		return runDeactivate(ctx, args[1:], stdout, stderr)
	case "keep-debug-logs":
		return runKeepDebugLogs(ctx, args[1:], stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, versionString())
		return 0
	}
	fmt.Fprintf(stderr, "unknown command %q\n%s\n", args[0], usage)
	return 2
}
