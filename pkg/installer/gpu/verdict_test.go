// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gpu_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestParseRefusesWhatIsNotOneVerdict: the installer acts on the verdict (nvproxy on or off), so anything but one
// verdict of a known status is an error quoting what came.
func TestParseRefusesWhatIsNotOneVerdict(t *testing.T) {
	if v, err := gpu.Parse([]byte(`{"status":"supported","driver":"580.159.04","gvisor":"v1","message":"ok"}` + "\n")); err != nil || !v.NVProxy() || v.Problem() {
		t.Errorf("a supported verdict: %+v, %v", v, err)
	}
	for _, bad := range []string{"", "EOF", `{"status":"supported","gvisor":"v1","message":"","extra":1}`, `{"status":"maybe","gvisor":"v1","message":""}`,
		`{"status":"supported","gvisor":"v1","message":""} {"status":"supported","gvisor":"v1","message":""}`, strings.Repeat("x", 2000)} {
		if _, err := gpu.Parse([]byte(bad)); err == nil || len(err.Error()) > 700 {
			t.Errorf("Parse(%.40q) = %v, want a short error", bad, err)
		}
	}
}

// TestExecReadsTheRealPreflight: the installer's reading of gvisor-gpu-check is the binary's own output (the
// contract between the two modules), here for the node this test runs on.
func TestExecReadsTheRealPreflight(t *testing.T) {
	if os.Getenv("GVISOR_TEST_GVISOR_DIR") == "" && os.Getenv("REQUIRE_REAL_COMPONENTS") != "1" {
		t.Skip("builds gvisor-gpu-check from its module: make test runs it")
	}
	v, err := gpu.Exec{Binary: installertest.GPUCheck(t)}.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	present, err := gpu.HasDevices("/")
	if err != nil {
		t.Fatal(err)
	}
	if (v.Status == gpu.NoDevices) == present || v.GVisor == "" || v.Message == "" {
		t.Errorf("verdict %+v on a node with NVIDIA devices %v", v, present)
	}
}
