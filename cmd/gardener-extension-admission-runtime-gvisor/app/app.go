// Package app is the gVisor admission's webhook server: flags (options.go), the server (server.go) and the
// binary's entry points (this file).
package app

import (
	"context"
	"fmt"
	"io"

	"github.com/gardener/gardener/pkg/logger"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

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

// Main is the binary: Run, plus pointing the process-wide loggers of client-go (klog) and controller-runtime at
// ours, so every line has the chosen level and format.
func Main(ctx context.Context, args []string, out io.Writer) error {
	return parseAndRun(ctx, args, out, true)
}

// Run parses args like the binary and serves until ctx is cancelled, leaving the process-wide loggers alone (for
// tests that run it in-process). --help and --version print to out and return nil.
func Run(ctx context.Context, args []string, out io.Writer) error {
	return parseAndRun(ctx, args, out, false)
}

func parseAndRun(ctx context.Context, args []string, out io.Writer, setProcessLoggers bool) error {
	o, fs := NewFlagSet()
	fs.SetOutput(out)
	if done, err := cli.Parse(fs, args, out, &o.PrintVersion); done {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	log, err := logger.NewZapLogger(o.LogLevel, o.LogFormat)
	if err != nil {
		return fmt.Errorf("creating the logger (--log-level, --log-format): %w", err)
	}
	log = log.WithName(Name)
	if setProcessLoggers {
		logf.SetLogger(log)
		klog.SetLogger(log)
	}
	s, err := NewServer(o, log)
	if err != nil {
		return err
	}
	log.Info("Starting the gVisor admission webhook server", "version", version.Version, "port", o.Port,
		"certDir", o.CertDir, "health", s.HealthAddr(), "metrics", s.MetricsAddr())
	return s.Start(ctx)
}
