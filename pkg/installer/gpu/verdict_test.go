// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package gpu_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/gpu"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestParseRefusesWhatIsNotOneVerdict: the installer acts on the verdict (nvproxy on or off), so anything but one
// verdict of a known status is an error quoting what came.
func TestParseRefusesWhatIsNotOneVerdict(t *testing.T) {
	if v, err := gpu.Parse([]byte(`{"status":"supported","driver":"580.159.04","gvisor":"v1","message":"ok"}` + "\n")); err != nil || !v.NVProxy() {
		t.Errorf("a supported verdict: %+v, %v", v, err)
	}
	for _, bad := range []string{"", "EOF", `{"status":"supported","gvisor":"v1","message":"","extra":1}`, `{"status":"maybe","gvisor":"v1","message":""}`,
		`{"status":"supported","gvisor":"v1","message":""} {"status":"supported","gvisor":"v1","message":""}`, strings.Repeat("x", 2000)} {
		if _, err := gpu.Parse([]byte(bad)); err == nil || len(err.Error()) > 700 {
			t.Errorf("Parse(%.40q) = %v, want a short error", bad, err)
		}
	}
}

// TestExecReadsTheRealPreflight: the installer reads gvisor-gpu-check's own output (the contract between the two
// modules, whose verdict types are each other's mirror): every status the binary gives for a driver, and its verdict
// on the node this test runs on.
func TestExecReadsTheRealPreflight(t *testing.T) {
	if os.Getenv("GVISOR_TEST_GVISOR_DIR") == "" && os.Getenv("REQUIRE_REAL_COMPONENTS") != "1" {
		t.Skip("builds gvisor-gpu-check from its module: make test runs it")
	}
	bin := installertest.GPUCheck(t)
	for driver, want := range map[string]nodecontract.GPUStatus{"580.159.04": nodecontract.GPUSupported, "535.104.05": nodecontract.GPUUnsupported, "570.211.01": nodecontract.GPUUnknown, "580": nodecontract.GPUMalformed} {
		out, err := exec.Command(bin, "preflight", "--driver-version="+driver).Output()
		if err != nil {
			t.Fatalf("gvisor-gpu-check preflight --driver-version=%s: %v", driver, err)
		}
		if v, err := gpu.Parse(out); err != nil || v.Status != want {
			t.Errorf("the installer reads gvisor-gpu-check's verdict on %s as %+v (%v), want %s", driver, v, err, want)
		}
	}
	v, err := gpu.Exec{Binary: bin}.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	present, err := gpu.HasDevices("/")
	if err != nil {
		t.Fatal(err)
	}
	if (v.Status == nodecontract.GPUNoDevices) == present || v.GVisor == "" || v.Message == "" {
		t.Errorf("verdict %+v on a node with NVIDIA devices %v", v, present)
	}
}
