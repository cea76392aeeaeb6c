// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	gvisoradmission "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/admission"
)

// Server is the webhook server (HTTPS, controller-runtime's, which reloads the certificate when its files
// change) plus the plain HTTP health and metrics endpoints. There is no manager: the admission reads nothing from
// any API server, so it needs no client, cache or leader election.
type Server struct {
	log     logr.Logger
	webhook webhook.Server
	health  net.Listener
	metrics net.Listener // nil when disabled
}

// NewServer builds the server from validated options. The health and metrics listeners are opened here, so a port
// conflict is reported before anything is served and HealthAddr/MetricsAddr name the real ports (also for :0).
func NewServer(o *Options, log logr.Logger) (*Server, error) {
	validator, err := gvisoradmission.NewShootValidator()
	if err != nil {
		return nil, err
	}
	hook := validator.Webhook()
	hook.LogConstructor = func(_ logr.Logger, req *admission.Request) logr.Logger {
		return admission.DefaultLogConstructor(log, req)
	}
	ws := webhook.NewServer(webhook.Options{
		Host: o.BindAddress, Port: o.Port, CertDir: o.CertDir, CertName: o.CertName, KeyName: o.KeyName,
		TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.MinVersion = tls.VersionTLS12 }},
	})
	ws.Register(gvisoradmission.WebhookPath, newLanes().limitInFlight(hook))

	s := &Server{log: log, webhook: ws}
	if s.health, err = net.Listen("tcp", o.HealthBindAddress); err != nil {
		return nil, fmt.Errorf("--health-bind-address %s: %w", o.HealthBindAddress, err)
	}
	if o.MetricsBindAddress != "0" {
		if s.metrics, err = net.Listen("tcp", o.MetricsBindAddress); err != nil {
			_ = s.health.Close()
			return nil, fmt.Errorf("--metrics-bind-address %s: %w", o.MetricsBindAddress, err)
		}
	}
	return s, nil
}

// HealthAddr is the address /healthz and /readyz are served on.
func (s *Server) HealthAddr() string { return s.health.Addr().String() }

// MetricsAddr is the address /metrics is served on, or "" when disabled.
func (s *Server) MetricsAddr() string {
	if s.metrics == nil {
		return ""
	}
	return s.metrics.Addr().String()
}

// plainServer is one of the plain HTTP servers (health, metrics) next to the webhook server.
type plainServer struct {
	name string
	srv  *http.Server
	ln   net.Listener
}

// plainServers builds the health server and, unless metrics are disabled, the metrics server.
func (s *Server) plainServers() []plainServer {
	healthMux := http.NewServeMux()
	// /healthz: the process serves. /readyz: the webhook server accepts TLS connections (so the Service only sends
	// the API server's calls to pods that can answer them).
	healthMux.Handle("/healthz", http.StripPrefix("/healthz", &healthz.Handler{Checks: map[string]healthz.Checker{"ping": healthz.Ping}}))
	healthMux.Handle("/readyz", http.StripPrefix("/readyz", &healthz.Handler{Checks: map[string]healthz.Checker{"webhook-server": s.webhook.StartedChecker()}}))
	servers := []plainServer{{"health", &http.Server{Handler: healthMux, ReadHeaderTimeout: 10 * time.Second}, s.health}}
	if s.metrics != nil {
		metricsMux := http.NewServeMux()
		// controller-runtime's webhook request metrics (count, latency, in flight) live in its registry.
		metricsMux.Handle("/metrics", promhttp.HandlerFor(ctrlmetrics.Registry, promhttp.HandlerOpts{}))
		servers = append(servers, plainServer{"metrics", &http.Server{Handler: metricsMux, ReadHeaderTimeout: 10 * time.Second}, s.metrics})
	}
	return servers
}

// Start serves until ctx is cancelled (then shuts everything down and returns nil) or one server fails (then
// stops the others and returns its error).
func (s *Server) Start(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	servers := s.plainServers()
	errc := make(chan error, len(servers)+1)
	for _, hs := range servers {
		go func() {
			if err := hs.srv.Serve(hs.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("%s server: %w", hs.name, err)
				return
			}
			errc <- nil
		}()
	}
	go func() {
		if err := s.webhook.Start(ctx); err != nil {
			errc <- fmt.Errorf("webhook server: %w", err)
			return
		}
		errc <- nil
	}()

	var first error
	received := 0
	select {
	case first = <-errc:
		received = 1
	case <-ctx.Done():
	}
	cancel() // stops the webhook server
	if err := stopAll(servers, errc, len(servers)+1-received, first); err != nil {
		s.log.Error(err, "Server failed")
		return err
	}
	return nil
}

// stopAll shuts the plain servers down (the webhook server stops with its context) and collects the remaining
// results from errc; it returns first, else the first error a server reported while stopping, joined with a
// timeout error when they do not all stop within 10s.
func stopAll(servers []plainServer, errc <-chan error, remaining int, first error) error {
	shutdownCtx, done := context.WithTimeout(context.Background(), 10*time.Second)
	defer done()
	for _, hs := range servers {
		_ = hs.srv.Shutdown(shutdownCtx)
	}
	for ; remaining > 0; remaining-- {
		select {
		case err := <-errc:
			if first == nil {
				first = err
			}
		case <-shutdownCtx.Done():
			return errors.Join(first, errors.New("timed out stopping the servers"))
		}
	}
	return first
}
