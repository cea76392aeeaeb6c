// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installer_test

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// TestInstallRefusesCgroupV1WithSystemdDriver: a real containerd 2.4 with runc's SystemdCgroup = true (the systemd
// cgroup driver, as Gardener configures every node) on a cgroup v1 hierarchy (a tmpfs at the cgroup root, as the
// installation pod sees one) is refused before the node is touched, with the reason and the fix; the cgroupfs driver
// there is accepted (the sandbox proof then decides).
func TestInstallRefusesCgroupV1WithSystemdDriver(t *testing.T) {
	c := installertest.Release(t, "2.4")
	if os.Geteuid() != 0 {
		t.Skip("mounting the tmpfs of a cgroup v1 root needs root")
	}
	cgroupRoot := t.TempDir()
	if err := unix.Mount("tmpfs", cgroupRoot, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatalf("mounting a tmpfs as the cgroup v1 root: %v", err)
	}
	t.Cleanup(func() { _ = unix.Unmount(cgroupRoot, unix.MNT_DETACH) })
	config := bytes.Replace(readTestdata(t, "configs/default-2.4.toml"), []byte("SystemdCgroup = false"), []byte("SystemdCgroup = true"), 1)
	h := newHost(t, config)
	d := installertest.StartDaemon(t, c, h.path(nodecontract.ContainerdConfigPath), h.root)
	r := &installertest.Restarter{D: d}
	o := h.options()
	o.Restarter, o.Verifier, o.CgroupRoot = r, verify.CRI{Socket: d.Socket}, cgroupRoot
	before := installertest.HashTree(t, h.root)

	res, err := installer.Install(context.Background(), o)
	if !refusal.Is(err) {
		t.Fatalf("want a refusal, got %v (%s)", err, res.Summary())
	}
	for _, want := range []string{"cgroup v1 with the systemd cgroup driver", "outside its pod's cgroup", "fix: a machine image with cgroup v2", "remove gvisor from the worker pool"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q: %v", want, err)
		}
	}
	if got := res.FailedSummary(); !strings.Contains(got, "cgroup v1 with the systemd cgroup driver is not supported") {
		t.Errorf("failed summary %q does not name the node's cgroups", got)
	}
	if !reflect.DeepEqual(before, installertest.HashTree(t, h.root)) {
		t.Error("the refused install changed the node")
	}
	if r.Restarts != 0 {
		t.Errorf("containerd restarted %d times", r.Restarts)
	}

	// The same hierarchy with the cgroupfs driver passes the check; what follows is the install as everywhere else.
	h2 := newHost(t, readTestdata(t, "configs/default-2.4.toml"))
	d2 := installertest.StartDaemon(t, c, h2.path(nodecontract.ContainerdConfigPath), h2.root)
	o2 := h2.options()
	o2.Restarter, o2.Verifier, o2.CgroupRoot = &installertest.Restarter{D: d2}, verify.CRI{Socket: d2.Socket}, cgroupRoot
	if res, err := installer.Install(context.Background(), o2); refusal.Is(err) {
		t.Fatalf("cgroup v1 with the cgroupfs driver refused: %v (%s)", err, res.Summary())
	}
	if log := h2.logs.String(); !strings.Contains(log, `msg="cgroups supported"`) || !strings.Contains(log, "driver=cgroupfs") {
		t.Errorf("no accepting cgroups step in the log:\n%s", log)
	}
}
