// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package releases_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/releases"
)

// TestInUse reads bundles as the runsc shim writes them (pkg/shim/v1/runsc/state.go: state.json with
// options.binaryName) and counts the releases they name; other runtimes' bundles and unreadable ones do not count.
func TestInUse(t *testing.T) {
	tasks := t.TempDir()
	bundle := func(ns, id, content string) {
		t.Helper()
		dir := filepath.Join(tasks, ns, id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if content != "" {
			if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	const bin = "/var/bin/containerruntimes"
	bundle("k8s.io", "sandbox-a", `{"rootfs":"/run/x/rootfs","options":{"binaryName":"/var/bin/containerruntimes/gvisor/releases/A/runsc","root":""}}`)
	bundle("k8s.io", "container-a", `{"options":{"binaryName":"/var/bin/containerruntimes/gvisor/releases/A/runsc"}}`)
	bundle("k8s.io", "sandbox-b", `{"options":{"binaryName":"/var/bin/containerruntimes/gvisor/releases/B/runsc"}}`)
	bundle("k8s.io", "flat-layout", `{"options":{"binaryName":""}}`)
	bundle("moby", "runc-task", "")
	bundle("k8s.io", "garbage", "{")
	got, err := releases.InUse(tasks, bin)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"A": 2, "B": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("InUse = %v, want %v", got, want)
	}
}
