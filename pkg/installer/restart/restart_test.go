// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package restart

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/realcomponents"
)

// TestSystemdOverRealBus drives the D-Bus side of the systemd restarter against a real dbus-daemon on a socket
// under a temporary directory (as the pod sees the host's bus under --host-root): dial, EXTERNAL auth and Hello
// work from a static binary, and the call reaches the bus. No systemd runs here (not PID 1), so the bus answers
// that org.freedesktop.systemd1 is not there; the error must say which unit and which socket.
func TestSystemdOverRealBus(t *testing.T) {
	// hack/tools/dbus.sh installs Debian's dbus; under `make test` a missing bus daemon fails instead of skipping.
	daemon := realcomponents.Env(t, "GVISOR_TEST_DBUS_DAEMON", "tool-dbus")
	dir, err := os.MkdirTemp("", "bus-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "system_bus_socket")
	// A system-type bus with EXTERNAL auth like the host's, but no service activation (nothing gets started).
	config := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(config, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=`+sock+`</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(daemon, "--config-file="+config, "--nofork", "--nopidfile")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for i := 0; i < 200; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := dial(ctx, sock)
	if err != nil {
		t.Fatalf("dial/auth/hello on a real bus: %v", err)
	}
	if names := conn.Names(); len(names) == 0 || !strings.HasPrefix(names[0], ":") {
		t.Errorf("no unique bus name after Hello: %v", names)
	}
	conn.Close()

	s := Systemd{Socket: sock, Unit: "containerd.service"}
	err = s.Restart(ctx)
	if err == nil {
		t.Fatal("restart succeeded on a bus without systemd")
	}
	if !strings.Contains(err.Error(), "containerd.service") || !strings.Contains(err.Error(), "org.freedesktop.systemd1") {
		t.Errorf("error should name the unit and the missing systemd: %v", err)
	}
	t.Logf("as expected without systemd: %v", err)
}
