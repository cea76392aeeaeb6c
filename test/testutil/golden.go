// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package testutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// UpdateEnv is the environment variable with which `make snapshots` (hack/snapshots.sh) asks every golden test
// to rewrite its file instead of comparing.
const UpdateEnv = "UPDATE_SNAPSHOTS"

// Updating reports whether golden files are being rewritten.
func Updating() bool { return os.Getenv(UpdateEnv) == "1" }

// Golden compares got with the file golden, or rewrites the file when Updating. The failure names the file and
// the command that regenerates it, so a reviewer sees the diff the change caused.
func Golden(t testing.TB, golden, got string) {
	t.Helper()
	if Updating() {
		Must(t, os.MkdirAll(filepath.Dir(golden), 0o755))
		Must(t, os.WriteFile(golden, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v: run `make snapshots` to create it", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s is stale (-want +got); run `make snapshots` and review the diff if the change is intended:\n%s", golden, diff)
	}
}
