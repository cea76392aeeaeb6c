// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// TestBareHostRootStaysBare: on a host root without /etc/containerd, install refuses (no config.toml) and
// uninstall has nothing to do, and both leave the host root as empty as they found it: the lock's directory, which
// each had to create, goes again with the holder record in it.
func TestBareHostRootStaysBare(t *testing.T) {
	root := t.TempDir()
	source := t.TempDir()
	stubRelease(t, source, "v1")
	var logs bytes.Buffer
	o := installer.Options{HostRoot: root, Source: source, BinDir: binDir, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	if _, err := installer.Install(context.Background(), o); !refusal.Is(err) {
		t.Fatalf("install on a host root without config.toml: want a refusal, got %v", err)
	}
	assertEmpty(t, root, "install's refusal")
	if res, err := installer.Uninstall(context.Background(), o); err != nil || len(res.Changed) != 0 {
		t.Fatalf("uninstall on a bare host root: %s, %v", res.Summary(), err)
	}
	assertEmpty(t, root, "uninstall")
}

func assertEmpty(t *testing.T, root, after string) {
	t.Helper()
	if entries, err := os.ReadDir(root); err != nil || len(entries) != 0 {
		t.Errorf("after %s the host root holds %v (%v), want nothing", after, entries, err)
	}
}
