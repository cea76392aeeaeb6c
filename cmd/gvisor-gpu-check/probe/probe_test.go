// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"gvisor.dev/gvisor/pkg/abi/nvgpu"
)

// TestLayoutIsTheDriversAsGVisorHasIt: the parameters have the sizes of the driver's structs (nv_ioctl_card_info_t
// 72 bytes, nv_ioctl_rm_api_version_t 72), as gVisor's marshalling code counts them.
func TestLayoutIsTheDriversAsGVisorHasIt(t *testing.T) {
	var c nvgpu.IoctlCardInfo
	var v nvgpu.RMAPIVersion
	if unsafe.Sizeof(c) != uintptr(c.SizeBytes()) || unsafe.Sizeof(v) != uintptr(v.SizeBytes()) || c.SizeBytes() != 72 || v.SizeBytes() != 72 {
		t.Errorf("sizes: card info %d (marshal %d), version %d (marshal %d)", unsafe.Sizeof(c), c.SizeBytes(), unsafe.Sizeof(v), v.SizeBytes())
	}
}

// TestAskNamesWhatFailed: without the device, or on a file that is not the driver, the error names the device or
// the ioctl.
func TestAskNamesWhatFailed(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nvidiactl")
	if _, err := Ask(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Ask(missing) = %v", err)
	}
	notDriver := filepath.Join(t.TempDir(), "nvidiactl")
	if err := os.WriteFile(notDriver, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Ask(notDriver); err == nil || !strings.Contains(err.Error(), "NV_ESC_CHECK_VERSION_STR") {
		t.Errorf("Ask(a plain file) = %v", err)
	}
}
