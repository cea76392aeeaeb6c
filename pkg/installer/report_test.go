// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"context"
	"crypto/sha512"
	"encoding/hex"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestReportOnRealContainerd: an install of the real gVisor release on a real containerd reports (package report,
// the line the pod's status keeps) the release's version as its runsc carries it (GVISOR_VERSION), the start of
// runsc's SHA-512, the containerd version CRI gave and the foreign shim in the bin dir; a second run reports the
// same. Uninstall reports the foreign shim, which it leaves.
func TestReportOnRealContainerd(t *testing.T) {
	c := installertest.Release(t, "2.4")
	h := newHost(t, relativeImports(readTestdata(t, "configs/default-2.4.toml")))
	installertest.RealRelease(t, h.source)
	const foreign = binDir + "/containerd-shim-runc-v2"
	h.write(t, foreign, []byte("#!/bin/sh\n"))
	d := installertest.StartDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	o := h.options()
	o.Restarter, o.Verifier, o.VerifyTimeout = &installertest.Restarter{D: d}, verify.CRI{Socket: d.Socket}, 10*time.Second

	release, err := os.ReadFile("../../GVISOR_VERSION")
	if err != nil {
		t.Fatal(err)
	}
	runsc, err := os.ReadFile(h.source + "/runsc")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(runsc)
	want := nodecontract.Report{GVisor: strings.TrimSpace(string(release)), RunscSum: hex.EncodeToString(sum[:])[:12],
		Containerd: "containerd " + c.Version, Foreign: []string{foreign}}
	for _, run := range []string{"first", "second"} {
		res, err := installer.Install(context.Background(), o)
		if err != nil {
			t.Fatalf("%s install: %v", run, err)
		}
		line := res.Report().String()
		got, ok := nodecontract.ParseReport(line)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s install reports %q:\n got %+v\nwant %+v", run, line, got, want)
		}
	}
	res, err := installer.Uninstall(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Report().String(); got != "uninstalled gVisor; foreign shims: "+foreign || !h.exists(foreign) {
		t.Errorf("uninstall reports %q (foreign shim kept: %v)", got, h.exists(foreign))
	}
}
