// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package app is the gVisor admission's webhook server: flags (options.go), the server (server.go) and the
// binary's entry points (this file).
package app

import (
	"context"
	"fmt"
	"io"

	"github.com/gardener/gardener/pkg/logger"
	"github.com/go-logr/logr"
	"github.com/spf13/pflag"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/cli"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// NewFlagSet returns the options with their defaults and the flag set that fills them.
func NewFlagSet() (*Options, *pflag.FlagSet) {
	o := NewOptions()
	fs := pflag.NewFlagSet(Name, pflag.ContinueOnError)
	o.AddFlags(fs)
	return o, fs
}

// Command is the webhook server for pkg/cli's entry points (main.go runs it with cli.Execute): its logger is built
// from --log-level and --log-format.
func Command() cli.Command {
	o, fs := NewFlagSet()
	return cli.Command{
		FlagSet: fs, PrintVersion: &o.PrintVersion, Validate: o.Validate,
		Setup: func() (logr.Logger, error) {
			log, err := logger.NewZapLogger(o.LogLevel, o.LogFormat)
			if err != nil {
				return logr.Logger{}, fmt.Errorf("creating the logger (--log-level, --log-format): %w", err)
			}
			return log.WithName(Name), nil
		},
		Serve: func(ctx context.Context, log logr.Logger) error {
			s, err := NewServer(o, log)
			if err != nil {
				return err
			}
			log.Info("Starting the gVisor admission webhook server", "version", version.Version, "port", o.Port,
				"certDir", o.CertDir, "health", s.HealthAddr(), "metrics", s.MetricsAddr())
			return s.Start(ctx)
		},
	}
}

// Run parses args like the binary and serves until ctx is cancelled, leaving the process-wide loggers alone (for
// tests that run it in-process). --help and --version print to out and return nil.
func Run(ctx context.Context, args []string, out io.Writer) error {
	return cli.Run(ctx, Command(), args, out)
}
