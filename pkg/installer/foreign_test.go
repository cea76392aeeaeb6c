// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
)

// TestForeignShimsReportedNotTouched: the bin dir is first on containerd's PATH, so a
// containerd-shim-runc-v2 or runc there would run as root for every runc pod. Install and uninstall report such
// files (log line and the summary's warning, which the ready file carries) and leave them byte-for-byte, mode and
// mtime untouched; a clean bin dir gets no warning.
func TestForeignShimsReportedNotTouched(t *testing.T) {
	h := newHost(t, readTestdata(t, "configs/default-2.4.toml"))
	o := h.options()
	res, err := installer.Install(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Foreign) != 0 || strings.Contains(res.Summary(), "WARNING") {
		t.Fatalf("clean bin dir: %s", res.Summary())
	}

	foreign := map[string]os.FileMode{binDir + "/containerd-shim-runc-v2": 0o755, binDir + "/runc": 0o700, binDir + "/runsc.bak": 0o644}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for p, mode := range foreign {
		h.write(t, p, []byte("#!/bin/sh\necho "+p+"\n"))
		if err := os.Chmod(h.path(p), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(h.path(p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	want := binDir + "/containerd-shim-runc-v2, " + binDir + "/runc, " + binDir + "/runsc.bak"
	check := func(what string, res installer.Result) {
		t.Helper()
		if !strings.Contains(res.Summary(), "; WARNING: ") || !strings.Contains(res.Summary(), want) {
			t.Errorf("%s: summary does not warn about %s: %s", what, want, res.Summary())
		}
		if !strings.Contains(h.logs.String(), "foreign runtime-named files in the bin dir") || !strings.Contains(h.logs.String(), "runc") {
			t.Errorf("%s: no log line about the foreign files:\n%s", what, h.logs)
		}
		for p, mode := range foreign {
			st, err := os.Stat(h.path(p))
			if err != nil {
				t.Fatalf("%s: %s is gone: %v", what, p, err)
			}
			if st.Mode().Perm() != mode || !st.ModTime().Equal(old) || string(h.read(t, p)) != "#!/bin/sh\necho "+p+"\n" {
				t.Errorf("%s touched %s: mode %v mtime %v", what, p, st.Mode(), st.ModTime())
			}
		}
		h.logs.Reset()
	}
	res, err = installer.Install(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	check("install", res)
	res, err = installer.Uninstall(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	check("uninstall", res)
	if h.exists(binDir+"/runsc") || h.exists(binDir+"/containerd-shim-runsc-v1") {
		t.Errorf("uninstall left our own binaries")
	}
}
