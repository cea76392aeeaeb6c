// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/debuglogs"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// runKeepDebugLogs is `gvisor-installer keep-debug-logs`: it holds runsc's debug logs under --dir to --budget
// (package debuglogs) until SIGTERM or SIGINT. It runs on the nodes of a pool whose runsc flags write debug logs
// (debug, strace or debug-log): the installation pod's container debug-logs in the DaemonSet mode, the unit
// gvisor-debug-logs.service in the OperatingSystemConfig mode.
//
// Exit 0: stopped by a signal; 2: usage error.
func runKeepDebugLogs(ctx context.Context, args []string, stderr io.Writer) int {
	k, code := parseKeepDebugLogs(args, stderr)
	if k == nil {
		return code
	}
	k.Logger = slog.New(slog.NewTextHandler(stderr, nil)).With("version", version.Version)
	k.Logger.Info("Keeping the runsc debug logs within their budget", "dir", k.Dir, "budget", k.Budget, "interval", k.Interval.String(), "maxIdle", k.MaxIdle.String())
	if err := k.Run(ctx); err != nil {
		fmt.Fprintln(stderr, "keep-debug-logs:", err)
		return 2
	}
	return 0
}

func parseKeepDebugLogs(args []string, stderr io.Writer) (*debuglogs.Keeper, int) {
	k := &debuglogs.Keeper{}
	fs := flag.NewFlagSet("keep-debug-logs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&k.Dir, "dir", "", "the directory of runsc's debug logs as this process sees it (the node's /var/log/runsc)")
	fs.Int64Var(&k.Budget, "budget", debuglogs.DefaultBudget, "bytes of disk the logs may use; above it the largest are truncated")
	fs.DurationVar(&k.Interval, "interval", debuglogs.DefaultInterval, "how often to look")
	fs.DurationVar(&k.MaxIdle, "max-idle", debuglogs.DefaultMaxIdle, "remove a log nobody wrote to for this long (and no process holds open)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0
		}
		return nil, 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "keep-debug-logs: unexpected arguments %v\n", fs.Args())
		return nil, 2
	}
	if k.Dir == "" {
		fmt.Fprintln(stderr, "keep-debug-logs: --dir is required: the directory of runsc's debug logs (the node's /var/log/runsc)")
		return nil, 2
	}
	return k, 0
}
