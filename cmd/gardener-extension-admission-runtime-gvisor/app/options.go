// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gardener/gardener/pkg/logger"
	"github.com/spf13/pflag"
)

// Name is the admission component's name (logger name, flag set name).
const Name = "gardener-extension-admission-runtime-gvisor"

// Options are the command line options. Every flag is documented in AddFlags; the runtime chart's Deployment
// passes them and a test parses the rendered args with exactly this flag set.
type Options struct {
	// BindAddress and Port are where the webhook server listens (HTTPS).
	BindAddress string
	Port        int
	// CertDir holds the serving certificate and key (CertName, KeyName). The server re-reads them when they change,
	// so a rotated Secret mounted there takes effect without a restart.
	CertDir  string
	CertName string
	KeyName  string
	// MetricsBindAddress serves Prometheus metrics at /metrics (plain HTTP); "0" disables it.
	MetricsBindAddress string
	// HealthBindAddress serves /healthz and /readyz (plain HTTP).
	HealthBindAddress string
	LogLevel          string
	LogFormat         string
	PrintVersion      bool
}

// NewOptions returns the options with their defaults (Gardener's conventions: webhooks on 10250, metrics on
// 8080, health on 8081).
func NewOptions() *Options {
	return &Options{
		Port:               10250,
		CertName:           "tls.crt",
		KeyName:            "tls.key",
		MetricsBindAddress: ":8080",
		HealthBindAddress:  ":8081",
		LogLevel:           logger.InfoLevel,
		LogFormat:          logger.FormatJSON,
	}
}

// AddFlags registers every flag.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.BindAddress, "webhook-bind-address", o.BindAddress, "Address the HTTPS webhook server listens on (empty: all addresses).")
	fs.IntVar(&o.Port, "webhook-port", o.Port, "Port of the HTTPS webhook server; the Service's target port.")
	fs.StringVar(&o.CertDir, "tls-cert-dir", o.CertDir, "Directory with the serving certificate and key (required). "+
		"Changed files are picked up without a restart (certificate rotation).")
	fs.StringVar(&o.CertName, "tls-cert-name", o.CertName, "File name of the serving certificate (PEM, chain allowed) in --tls-cert-dir.")
	fs.StringVar(&o.KeyName, "tls-key-name", o.KeyName, "File name of the serving certificate's private key (PEM) in --tls-cert-dir.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, "Address of the plain HTTP /metrics endpoint; \"0\" disables it.")
	fs.StringVar(&o.HealthBindAddress, "health-bind-address", o.HealthBindAddress, "Address of the plain HTTP /healthz and /readyz endpoints.")
	fs.StringVar(&o.LogLevel, "log-level", o.LogLevel, "Log level: "+strings.Join(logger.AllLogLevels, ", ")+".")
	fs.StringVar(&o.LogFormat, "log-format", o.LogFormat, "Log format: "+strings.Join(logger.AllLogFormats, ", ")+".")
	fs.BoolVar(&o.PrintVersion, "version", false, "Print the version and exit.")
}

// Validate checks the options, naming the flag and the fix; the certificate files must exist (a server that cannot
// serve TLS would only fail its readiness probe, far from the cause).
func (o *Options) Validate() error {
	var errs []error
	if o.CertDir == "" {
		errs = append(errs, errors.New("--tls-cert-dir is required: the directory with the serving certificate (tls.crt) and key (tls.key)"))
	} else {
		for _, f := range []struct{ flag, name string }{{"tls-cert-name", o.CertName}, {"tls-key-name", o.KeyName}} {
			if _, err := os.Stat(filepath.Join(o.CertDir, f.name)); err != nil {
				errs = append(errs, fmt.Errorf("--tls-cert-dir %s has no %s (--%s): mount the serving certificate Secret there: %w", o.CertDir, f.name, f.flag, err))
			}
		}
	}
	if o.Port < 1 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--webhook-port must be between 1 and 65535, got %d", o.Port))
	}
	if o.MetricsBindAddress != "0" {
		if _, _, err := net.SplitHostPort(o.MetricsBindAddress); err != nil {
			errs = append(errs, fmt.Errorf("--metrics-bind-address %q must be host:port (for example :8080) or 0: %w", o.MetricsBindAddress, err))
		}
	}
	if _, _, err := net.SplitHostPort(o.HealthBindAddress); err != nil {
		errs = append(errs, fmt.Errorf("--health-bind-address %q must be host:port (for example :8081): %w", o.HealthBindAddress, err))
	}
	if !slices.Contains(logger.AllLogLevels, o.LogLevel) {
		errs = append(errs, fmt.Errorf("--log-level %q is not one of %s", o.LogLevel, strings.Join(logger.AllLogLevels, ", ")))
	}
	if !slices.Contains(logger.AllLogFormats, o.LogFormat) {
		errs = append(errs, fmt.Errorf("--log-format %q is not one of %s", o.LogFormat, strings.Join(logger.AllLogFormats, ", ")))
	}
	return errors.Join(errs...)
}
