// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gpu

import (
	"errors"
	"testing"
)

// TestDriverChanged: runsc's two refusals of the node's driver (quoted from real nodes, gpu-nvproxy.md) get the
// diagnosis; any other failure, and no failure, get none. cmd/gvisor-installer's TestReproveNamesAChangedDriver
// has real runsc say both.
func TestDriverChanged(t *testing.T) {
	for reason, want := range map[string]bool{
		"cannot create sandbox process: failed to get Nvidia driver version: failed to open /dev/nvidiactl: no such file or directory":                                  true,
		"waiting for sandbox to start: EOF; runsc: creating loader: registering filesystems: registering nvproxy driver: unsupported Nvidia driver version: 535.104.05": true,
		"waiting for sandbox to start: EOF; runsc: panic: error initializing vCPU":                                                                                      false,
	} {
		if got := DriverChanged(errors.New(reason)) != ""; got != want {
			t.Errorf("DriverChanged(%q) diagnoses: %v, want %v", reason, got, want)
		}
	}
	if DriverChanged(nil) != "" {
		t.Error("DriverChanged(nil) diagnoses a failure")
	}
}
