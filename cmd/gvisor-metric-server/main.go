// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command gvisor-metric-server serves the Prometheus metrics of the gVisor sandboxes on a node, as two processes:
//
//	gvisor-metric-server --root DIR --metric-server ADDR --listen SOCKET --socket-mode 0666 [--per-pod]   (collector)
//	gvisor-metric-server --collector-socket SOCKET --listen :PORT                                         (front)
//
// The collector (package server) runs as root: it reads the sandboxes' state under --root and asks each over its
// control socket. --metric-server is the value of runsc's metric-server flag in the node's runsc.toml; only
// sandboxes created with exactly that value are served. It listens on --listen (default: --metric-server): an
// address is host:port, :port or an absolute path (a Unix socket, given --socket-mode), as runsc's flag allows.
// Only with --per-pod does it name pods and namespaces: where every pod of the cluster reaches it, it serves the
// node's sums.
//
// The front (package front) is what the network reaches: it runs as a user of its own with nothing but the
// collector's socket and answers /metrics by asking the collector, so the process that holds the sandboxes' control
// sockets listens on no network. /metrics is the endpoint of both; SIGTERM and SIGINT stop them.
//
// It is its own Go module: it links runsc's container and sandbox packages, which need the exact dependency
// versions of the pinned gVisor module (its OCI runtime-spec), not the extension's newer ones.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/netutil"
	gvisorlog "gvisor.dev/gvisor/pkg/log"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gvisor-metric-server/front"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gvisor-metric-server/server"
)

// version is the release this binary belongs to, stamped at build time (-X main.version=..., pkg/images); it is
// its own module and does not link the extension's pkg/version.
var version = "v0.0.0-dev"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gvisor-metric-server:", err)
		os.Exit(1)
	}
}

// options are the parsed command line.
type options struct {
	root, address, listen, prefix string
	// collectorSocket is the front's collector; empty for the collector itself.
	collectorSocket string
	// socketMode is the permission of the collector's Unix socket (--listen a path): the front runs as another user.
	socketMode          os.FileMode
	timeout             time.Duration
	perPod, showVersion bool
}

// parseFlags parses args and completes the options. A front (--collector-socket) needs --listen and takes none of
// the collector's flags. A collector needs --metric-server, with "%RUNTIME_ROOT%" replaced by --root (the sandboxes'
// recorded address is compared that way, server.load); --listen defaults to it.
func parseFlags(args []string) (*options, error) {
	o := &options{}
	var socketMode string
	fs := flag.NewFlagSet("gvisor-metric-server", flag.ContinueOnError)
	fs.StringVar(&o.root, "root", "/run/containerd/runsc/k8s.io", "runsc's root directory of the sandboxes (the containerd shim's, per namespace)")
	fs.StringVar(&o.address, "metric-server", "", "the metric-server flag of the sandboxes to serve (as in runsc.toml)")
	fs.StringVar(&o.listen, "listen", "", "address to listen on (default: --metric-server)")
	fs.StringVar(&o.prefix, "exporter-prefix", "runsc_", "prefix of every metric name")
	fs.DurationVar(&o.timeout, "sandbox-timeout", server.DefaultTimeout, "how long one sandbox may take to answer a scrape")
	fs.BoolVar(&o.perPod, "per-pod", false, "serve each sandbox's series, labelled with its pod and namespace; without it only the node's sums "+
		"(for a server that every pod of the cluster can reach)")
	fs.StringVar(&o.collectorSocket, "collector-socket", "", "run as the front: answer /metrics on --listen by asking the collector on this Unix socket")
	fs.StringVar(&socketMode, "socket-mode", "0600", "permission of the Unix socket the collector listens on (octal)")
	fs.BoolVar(&o.showVersion, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q: every setting is a flag", fs.Args())
	}
	if o.showVersion {
		return o, nil
	}
	if o.collectorSocket != "" {
		return o, checkFront(o, fs)
	}
	mode, err := strconv.ParseUint(socketMode, 8, 32)
	if err != nil || mode&^0o777 != 0 {
		return nil, fmt.Errorf("--socket-mode %q: want an octal permission such as 0660", socketMode)
	}
	o.socketMode = os.FileMode(mode)
	if o.address == "" {
		return nil, fmt.Errorf("--metric-server is required: the value of runsc's metric-server flag in the node's runsc.toml")
	}
	o.address = strings.ReplaceAll(o.address, "%RUNTIME_ROOT%", o.root)
	if o.listen == "" {
		o.listen = o.address
	}
	return o, nil
}

// checkFront refuses a front command line that names what only the collector holds.
func checkFront(o *options, fs *flag.FlagSet) error {
	if !filepath.IsAbs(o.collectorSocket) {
		return fmt.Errorf("--collector-socket %q: want the absolute path of the collector's Unix socket (its --listen)", o.collectorSocket)
	}
	if o.listen == "" || filepath.IsAbs(o.listen) {
		return fmt.Errorf("--listen %q: the front needs the TCP address the scraper reaches, such as :9474", o.listen)
	}
	var collectorOnly []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "root", "metric-server", "per-pod", "exporter-prefix", "sandbox-timeout", "socket-mode":
			collectorOnly = append(collectorOnly, "--"+f.Name)
		}
	})
	if len(collectorOnly) > 0 {
		return fmt.Errorf("%s: the collector's flags; the front (--collector-socket) reads no sandbox", strings.Join(collectorOnly, ", "))
	}
	return nil
}

func run(args []string) error {
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	if o.showVersion {
		fmt.Fprintln(os.Stdout, version)
		return nil
	}
	// runsc's packages log every control call at info level; a scrape per sandbox per interval must not fill the
	// node's logs.
	gvisorlog.SetLevel(gvisorlog.Warning)
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var handler http.Handler
	if o.collectorSocket != "" {
		handler = front.New(o.collectorSocket, log)
	} else {
		handler = &server.Server{Root: o.root, Address: o.address, Prefix: o.prefix, Timeout: o.timeout, PerPod: o.perPod, Logger: log}
	}
	l, err := listenOn(o.listen, o.socketMode)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", handler)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, WriteTimeout: writeTimeout, IdleTimeout: idleTimeout}
	l = netutil.LimitListener(l, maxConnections)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if o.collectorSocket != "" {
		log.Info("serving the collector's gVisor sandbox metrics", "version", version, "listen", l.Addr().String(), "collector", o.collectorSocket)
	} else {
		log.Info("collecting gVisor sandbox metrics", "version", version, "listen", l.Addr().String(), "root", o.root, "metric-server", o.address, "per-pod", o.perPod)
	}
	if err := hs.Serve(l); err != nil && err != http.ErrServerClosed {
		return fmt.Errorf("serving on %s: %w", o.listen, err)
	}
	return nil
}

// Limits of the HTTP server: a client that connects and stalls, or many of them, must not hold the node's metric
// server. A scrape answers within server.ScrapeBudget, so writeTimeout leaves it room; the shoot's Prometheus keeps
// one connection per target, so maxConnections leaves room for it, a second Prometheus and an operator's curl.
const (
	readHeaderTimeout = 10 * time.Second
	writeTimeout      = server.ScrapeBudget + 5*time.Second
	idleTimeout       = 2 * time.Minute
	maxConnections    = 16
)

// listenOn listens on a TCP address or, for an absolute path, a Unix socket with permission mode (a stale socket
// file of an earlier run is replaced). The socket's directory decides who reaches it (the pod's emptyDir, or the
// unit's directory that only root and the front's group may enter).
func listenOn(addr string, mode os.FileMode) (net.Listener, error) {
	if !filepath.IsAbs(addr) {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("listening on %s: %w", addr, err)
		}
		return l, nil
	}
	if err := os.Remove(addr); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("removing the stale socket %s: %w", addr, err)
	}
	l, err := net.Listen("unix", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on the Unix socket %s: %w", addr, err)
	}
	if err := os.Chmod(addr, mode); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("setting the Unix socket %s's permission: %w", addr, err)
	}
	return l, nil
}
