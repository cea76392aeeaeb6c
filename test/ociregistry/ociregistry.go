// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package ociregistry is a real OCI distribution registry for the tests (go-containerregistry's pkg/registry, in
// memory, plain http): what nodes pull from where an OperatingSystemConfig names an image (gardener-node-agent's
// imageRef files), as a landscape's registry. It listens wherever the caller's listen function opens a socket: the
// machine's loopback, or a node's network (test/kubenode's Node.Listen).
package ociregistry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Registry is one running registry.
type Registry struct {
	srv  *http.Server
	done chan error
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Port is its port on 127.0.0.1 of the network it listens in.
	Port int
}

// Start serves a Registry on a free port of 127.0.0.1, with listen (net.Listen, or a node's) opening the socket
// and dial (a net.Dialer's DialContext, or a node's) reaching it for Push, until Stop.
func Start(listen func(network, addr string) (net.Listener, error), dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*Registry, error) {
	l, err := listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the test registry's port: %w", err)
	}
	r := &Registry{
		srv:  &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0))), ReadHeaderTimeout: 10 * time.Second},
		done: make(chan error, 1),
		dial: dial,
		Port: l.Addr().(*net.TCPAddr).Port,
	}
	go func() { r.done <- r.srv.Serve(l) }()
	return r, nil
}

// Host is the registry's host:port in the network it listens in.
func (r *Registry) Host() string { return fmt.Sprintf("127.0.0.1:%d", r.Port) }

// Push pushes img as repository:tag (repository without a host) over plain http and returns its reference there.
func (r *Registry) Push(ctx context.Context, repository, tag string, img v1.Image) (name.Reference, error) {
	ref, err := name.ParseReference(r.Host()+"/"+repository+":"+tag, name.Insecure)
	if err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.Proxy = nil
	transport.DialContext = r.dial
	if err := remote.Write(ref, img, remote.WithContext(ctx), remote.WithTransport(transport)); err != nil {
		return nil, fmt.Errorf("pushing %s to the test registry: %w", ref, err)
	}
	return ref, nil
}

// Stop ends the registry.
func (r *Registry) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.srv.Shutdown(ctx); err != nil {
		return err
	}
	if err := <-r.done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("test registry: %w", err)
	}
	return nil
}
