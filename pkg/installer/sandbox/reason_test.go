// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	grpccodes "google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
)

// TestDecisiveLine: the line picked from real panic logs of `runsc boot` (testdata, captured from this repo's
// real-node tests: the KVM platform on a nested-virtualisation VM, enable-core-tags on a kernel without core
// scheduling) and from the other formats runsc's logs use.
func TestDecisiveLine(t *testing.T) {
	for name, want := range map[string]string{
		"kvm-out-of-slots.gvisor_panic.log": "fatal error: set memory region failed; out of slots (in pkg/sentry/platform/kvm.(*machine).mapMemorySlot)",
		"core-tags.gvisor_panic.log":        "Failed to core tag sentry: failed to core tag sentry: invalid argument",
	} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := decisiveLine(string(data)); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	for text, want := range map[string]string{
		"": "",
		"\n\nunable to read from the sync descriptor: 0, error EOF\n":                                                                                          "",
		`{"log":"creating loader: boom\n","stream":"stderr","time":"2026-12-02T00:22:52Z"}`:                                                                    "creating loader: boom",
		`{"msg":"no kvm","level":"error","time":"2026-12-02T00:22:52Z"}`:                                                                                       "no kvm",
		`time="2026-12-02T00:22:52Z" level=error msg="runsc said \"no\""`:                                                                                      `runsc said "no"`,
		"W1202 00:22:52.123456    1234 util.go:51] FATAL ERROR: creating loader: boom\n":                                                                       "creating loader: boom",
		"panic: runtime error: invalid memory address\n[signal SIGSEGV]\n\ngoroutine 1 [running]:\nruntime.panicmem(...)\n\truntime/panic.go:1\nmain.main()\n": "panic: runtime error: invalid memory address (in main.main)",
		"panic: x\n\ngoroutine 7 [running]:\nruntime.gopark()\n\ngoroutine 1 [select]:\nmain.main()\n":                                                         "panic: x",
		strings.Repeat("é", lineLimit): strings.Repeat("é", lineLimit/2) + "...",
	} {
		if got := decisiveLine(text); got != want {
			t.Errorf("decisiveLine(%.60q) = %q, want %q", text, got, want)
		}
	}
}

// TestWithReason: the panic log comes before the other files; a directory without a reason, or with one that
// containerd's error already carries, leaves the error alone; the error stays unwrappable.
func TestWithReason(t *testing.T) {
	dir := t.TempDir()
	cause := errors.New("rpc error: waiting for sandbox to start: EOF")
	if got := withReason(cause, filepath.Join(dir, "missing")); got != cause {
		t.Errorf("no directory: %v", got)
	}
	write(t, filepath.Join(dir, "gvisor.log"), `{"log":"user log line\n"}`)
	write(t, filepath.Join(dir, panicLog), "creating loader: boom\nunable to read from the sync descriptor: 0, error EOF\n")
	got := withReason(cause, dir)
	if want := cause.Error() + "; runsc: creating loader: boom"; got.Error() != want || !errors.Is(got, cause) {
		t.Errorf("got %v, want %s", got, want)
	}
	if got := withReason(errors.New("OCI runtime create failed: creating loader: boom"), dir); strings.Contains(got.Error(), "runsc:") {
		t.Errorf("a reason containerd already gives is repeated: %v", got)
	}
	write(t, filepath.Join(dir, panicLog), "")
	if got := withReason(cause, dir); !strings.HasSuffix(got.Error(), "; runsc: user log line") {
		t.Errorf("an empty panic log should fall back to the other files: %v", got)
	}
	// A sandbox start the deadline ended with empty logs (a hung `runsc boot`) says so; one whose runsc logged a
	// line before it hung gets that line instead.
	hung := fmt.Errorf("starting a pod sandbox: %w after 1m0s: %w", errHung, context.DeadlineExceeded)
	write(t, filepath.Join(dir, "gvisor.log"), "")
	got = withReason(hung, dir)
	if want := "runsc logged no reason: its sandbox neither started nor died"; !strings.Contains(got.Error(), want) ||
		!errors.Is(got, context.DeadlineExceeded) {
		t.Errorf("a hung start: got %v, want it to say %q", got, want)
	}
	if got := withReason(cause, dir); got != cause {
		t.Errorf("a failure that is not a hang gets the hang's words: %v", got)
	}
	write(t, filepath.Join(dir, panicLog), "panic: kvm: vCPU stuck\n")
	if got := withReason(hung, dir); !strings.HasSuffix(got.Error(), "; runsc: panic: kvm: vCPU stuck") {
		t.Errorf("a hung start with a logged line: %v", got)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDeadlineHit: gRPC's own timer for the context's deadline can end the call a moment before the context says
// so; its DeadlineExceeded is the proof's deadline too (seen: the kvm-unusable proof on containerd 2.4 in CI).
func TestDeadlineHit(t *testing.T) {
	live := context.Background()
	expired, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-expired.Done()
	grpcDeadline := grpcstatus.Error(grpccodes.DeadlineExceeded, "stream terminated by RST_STREAM with error code: CANCEL")
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"gRPC's deadline before the context's", live, grpcDeadline, true},
		{"the context's deadline", expired, errors.New("rpc error: code = Canceled"), true},
		{"another gRPC error", live, grpcstatus.Error(grpccodes.Unknown, "failed to create shim task"), false},
		{"a plain error", live, errors.New("EOF"), false},
	} {
		if got := deadlineHit(c.ctx, c.err); got != c.want {
			t.Errorf("%s: deadlineHit = %v, want %v", c.name, got, c.want)
		}
	}
}
