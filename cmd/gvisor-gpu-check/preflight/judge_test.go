// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package preflight_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/cmd/gvisor-gpu-check/preflight"
)

const gvisor = "v0.0.0-test"

// source is an injected driver: present or not, a version or an error.
type source struct {
	version string
	present bool
	err     error
}

func (s source) DriverVersion() (string, bool, error) { return s.version, s.present, s.err }

// TestCheck classifies drivers with the pinned runsc's own table. The versions are the field's: the reference H200's
// driver, the public bug reports' (google/gvisor#10605, #12773, #14617) and ABIs runsc registers as unsupported.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name     string
		src      source
		status   preflight.Status
		nearest  string
		branches bool     // the verdict lists the supported branches instead of a nearest version
		message  []string // words the message must carry
	}{
		{"the reference H200's driver", source{"580.159.04", true, nil}, preflight.Supported, "", false, []string{"580.159.04 is supported"}},
		{"known to runsc, not supported", source{"535.104.05", true, nil}, preflight.Unsupported, "535.129.03", false,
			[]string{"535.104.05 is known", "not supported", "install driver 535.129.03", "branch 535"}},
		{"bug report: a 570 runsc has no ABI for", source{"570.211.01", true, nil}, preflight.Unknown, "570.195.03", false,
			[]string{"570.211.01 is unknown", "install driver 570.195.03"}},
		{"bug report: a 535 between supported ones", source{"535.161.08", true, nil}, preflight.Unknown, "535.183.06", false, nil},
		{"bug report: a branch runsc supports none of", source{"595.71.05", true, nil}, preflight.Unsupported, "", true,
			[]string{"no driver of branch 595", "580."}},
		{"a branch runsc never saw", source{"470.256.02", true, nil}, preflight.Unknown, "", true, []string{"branch 470"}},
		{"malformed", source{"NVRM version: 580", true, nil}, preflight.Malformed, "", false, []string{`"NVRM version: 580"`, "cannot read"}},
		{"no devices", source{"", false, nil}, preflight.NoDevices, "", false, []string{"no /dev/nvidiactl"}},
		{"the driver does not answer", source{"", true, errors.New("NV_ESC_CHECK_VERSION_STR ioctl error: EIO")}, preflight.Unreadable, "", false,
			[]string{"EIO", "driver container"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := preflight.Check(c.src, gvisor)
			if v.Status != c.status || v.Nearest != c.nearest || (len(v.Branches) > 0) != c.branches || v.GVisor != gvisor {
				t.Errorf("Check(%+v) = %+v, want status %s, nearest %q, branches %v", c.src, v, c.status, c.nearest, c.branches)
			}
			for _, w := range c.message {
				if !strings.Contains(v.Message, w) {
					t.Errorf("message %q does not say %q", v.Message, w)
				}
			}
			if c.src.present && c.src.err == nil && v.Driver != c.src.version {
				t.Errorf("Driver = %q, want the version as the driver gave it, %q", v.Driver, c.src.version)
			}
		})
	}
}

// TestNearestIsSupported: every version the verdict tells an operator to install is one the shipped runsc binary
// lists as supported (`runsc nvproxy list-supported-drivers`), and every version it lists is judged supported.
// GVISOR_TEST_GVISOR_DIR is the real release (make test sets it); REQUIRE_REAL_COMPONENTS=1 fails without it.
func TestNearestIsSupported(t *testing.T) {
	dir := os.Getenv("GVISOR_TEST_GVISOR_DIR")
	if dir == "" {
		if os.Getenv("REQUIRE_REAL_COMPONENTS") == "1" {
			t.Fatal("GVISOR_TEST_GVISOR_DIR is not set: run `make test`, which builds the real runsc and sets it")
		}
		t.Skip("GVISOR_TEST_GVISOR_DIR is not set (make test sets it)")
	}
	out, err := exec.Command(filepath.Join(dir, "runsc"), "nvproxy", "list-supported-drivers").Output()
	if err != nil {
		t.Fatalf("runsc nvproxy list-supported-drivers: %v", err)
	}
	listed := strings.Fields(string(out))
	if len(listed) == 0 {
		t.Fatal("the shipped runsc lists no supported driver")
	}
	for _, l := range listed {
		if v := preflight.Check(source{l, true, nil}, gvisor); v.Status != preflight.Supported {
			t.Errorf("runsc lists %s as supported, the pre-flight says %s", l, v.Status)
		}
	}
	for _, d := range []string{"535.104.05", "535.161.08", "570.211.01", "580.95.05", "595.71.05", "470.256.02", "999.99.99"} {
		v := preflight.Check(source{d, true, nil}, gvisor)
		if slices.Contains(listed, d) {
			t.Errorf("%s is listed by runsc, the case expects it not to be", d)
		}
		for _, fix := range append([]string{v.Nearest}, v.Branches...) {
			if fix != "" && !slices.Contains(listed, fix) {
				t.Errorf("driver %s: the verdict names %s, which the shipped runsc does not list as supported: %s", d, fix, v.Message)
			}
		}
	}
}
