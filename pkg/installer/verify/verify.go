// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package verify checks over containerd's CRI socket that containerd is up and has (or no longer has) the runsc
// runtime handler, the way the kubelet will see it.
//
// A boot message is not proof: containerd 1.x logs "successfully booted" even when its CRI plugin failed to load
// (for example after runc disappeared from its runtimes map), and 2.x silently ignores tables under a wrong plugin
// ID. Only the effective CRI configuration tells.
package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// Expect is what Verify requires besides containerd serving CRI.
type Expect int

const (
	// Runsc means the runsc handler is configured (after install).
	Runsc Expect = iota
	// NoRunsc means the runsc handler is gone (after uninstall).
	NoRunsc
	// Up means containerd serves CRI, whatever its runtimes (after a rollback to a previous config).
	Up
)

func (e Expect) String() string {
	return [...]string{"runsc configured", "runsc not configured", "containerd up"}[e]
}

// Verifier checks containerd's effective state.
type Verifier interface {
	// Verify returns nil when containerd serves CRI and its runtimes meet want.
	Verify(ctx context.Context, want Expect) error
	// RuntimeVersion returns the CRI runtime's name and version (CRI Version), e.g. "containerd" and "1.7.35".
	RuntimeVersion(ctx context.Context) (name, version string, err error)
}

// CRISocket is the node path of containerd's socket (the CRI service is served on it).
const CRISocket = "/run/containerd/containerd.sock"

// CRI verifies over a CRI socket.
type CRI struct {
	// Socket is the socket path as the installer sees it (under --host-root).
	Socket string
}

// Dial returns a gRPC connection to a CRI socket (no I/O yet: the first call connects).
func Dial(socket string) (*grpc.ClientConn, error) {
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", socket, err)
	}
	return conn, nil
}

// RuntimeVersion asks CRI Version once. containerd reports its own version string there: "1.6.20~ds1" (Debian),
// "v2.0.14", "1.7.35+unknown" (a build without version stamping); package containerdversion parses them.
func (c CRI) RuntimeVersion(ctx context.Context) (name, version string, err error) {
	conn, err := Dial(c.Socket)
	if err != nil {
		return "", "", err
	}
	defer conn.Close()
	resp, err := runtimeapi.NewRuntimeServiceClient(conn).Version(ctx, &runtimeapi.VersionRequest{})
	if err != nil {
		return "", "", fmt.Errorf("CRI Version over %s: %w", c.Socket, err)
	}
	return resp.GetRuntimeName(), resp.GetRuntimeVersion(), nil
}

// Verify asks CRI Status (verbose) once.
func (c CRI) Verify(ctx context.Context, want Expect) error {
	conn, err := Dial(c.Socket)
	if err != nil {
		return err
	}
	defer conn.Close()
	resp, err := runtimeapi.NewRuntimeServiceClient(conn).Status(ctx, &runtimeapi.StatusRequest{Verbose: true})
	if err != nil {
		return fmt.Errorf("CRI Status over %s: %w", c.Socket, err)
	}
	for _, cond := range resp.GetStatus().GetConditions() {
		if cond.GetType() == runtimeapi.RuntimeReady && !cond.GetStatus() {
			return fmt.Errorf("containerd reports RuntimeReady=false: %s %s", cond.GetReason(), cond.GetMessage())
		}
	}
	runtimeType, err := runscType(resp.GetInfo())
	if err != nil {
		return err
	}
	switch {
	case want == Up:
	case want == Runsc && runtimeType == "":
		return fmt.Errorf("containerd is up but its CRI config has no runtime %q: the config on disk is not the one in effect or not under the right plugin ID", "runsc")
	case want == Runsc && runtimeType != "io.containerd.runsc.v1":
		return fmt.Errorf("containerd's runtime runsc has runtimeType %q, want io.containerd.runsc.v1", runtimeType)
	case want == NoRunsc && runtimeType != "":
		return fmt.Errorf("containerd still has runtime runsc")
	}
	return nil
}

// runscType extracts containerd.runtimes.runsc.runtimeType from the verbose info's "config" JSON, which every
// containerd from 1.6 to 2.4 reports.
func runscType(info map[string]string) (string, error) {
	raw, ok := info["config"]
	if !ok {
		return "", fmt.Errorf("CRI Status (verbose) has no \"config\" entry; is this containerd?")
	}
	var cfg struct {
		Containerd struct {
			Runtimes map[string]struct {
				RuntimeType string `json:"runtimeType"`
			} `json:"runtimes"`
		} `json:"containerd"`
	}
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		return "", fmt.Errorf("decoding CRI config: %w", err)
	}
	rt, ok := cfg.Containerd.Runtimes["runsc"]
	if !ok {
		return "", nil
	}
	if rt.RuntimeType == "" {
		return "(empty)", nil
	}
	return rt.RuntimeType, nil
}

// Until calls v.Verify every interval until it succeeds or timeout passes. On timeout it returns the most telling
// error: a call cut off by the deadline says less than an earlier answer such as "no runtime runsc", which is
// what an operator needs to see. containerd needs a moment after a restart before its socket answers.
func Until(ctx context.Context, v Verifier, want Expect, timeout, interval time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last, answered error
	for {
		callCtx, callCancel := context.WithTimeout(ctx, interval*5)
		last = v.Verify(callCtx, want)
		callCancel()
		if last == nil {
			return nil
		}
		if !isDeadline(last) {
			answered = last
		}
		select {
		case <-ctx.Done():
			if answered != nil {
				last = answered
			}
			return fmt.Errorf("containerd not verified within %s: %w", timeout, last)
		case <-time.After(interval):
		}
	}
}

// isDeadline reports whether err only says that a call ran out of time (context or gRPC deadline).
func isDeadline(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		status.Code(err) == codes.DeadlineExceeded // status.Code looks through %w wrapping
}
