// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodeagent_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// systemdBinary is Debian's systemd (the machine's package; Gardener's node images run systemd as well).
const systemdBinary = "/usr/lib/systemd/systemd"

// systemdStubTargets are the targets the OSC's units and systemd's default dependencies name (a service Requires
// sysinit.target and is After basic.target, a timer is Before timers.target, both conflict with shutdown.target):
// empty here, so that the test's systemd starts nothing of the machine's.
var systemdStubTargets = []string{"basic.target", "multi-user.target", "shutdown.target", "sysinit.target", "timers.target", "gvisor-test.target"}

// systemd is a real systemd service manager, PID 1 of its own PID, mount and cgroup namespaces, whose unit path is
// only unitDir (bind-mounted on /etc/systemd/system, where node-agent writes units). Its clients (systemctl,
// node-agent's D-Bus code on go-systemd's private socket /run/systemd/private) run inside its PID and mount
// namespaces (nsenter): systemd drops a connection whose peer PID it cannot see. Its cgroups are one directory per
// hierarchy, bind-mounted on the hierarchy's mount point: systemd takes what it sees as the cgroup root for its own.
type systemd struct {
	unitDir string
	cmd     *exec.Cmd
	// pid is systemd's PID in the test's PID namespace (the child of unshare --fork).
	pid int
}

// systemdScript runs as the shell that becomes systemd. Arguments: the cgroup directory name, the unit dir, then the cgroup hierarchies' mount points. It joins its cgroup in every hierarchy before unshare, so
// that systemd and every process it starts stay below them (a new v1 cpuset gets the root's cpus and mems first,
// which it lacks, as test/kubenode does).
const systemdScript = `set -e
name=$1 units=$2
shift 2
for m in "$@"; do
  mkdir -p "$m/$name"
  for f in cpuset.cpus cpuset.mems; do [ ! -e "$m/$f" ] || cat "$m/$f" > "$m/$name/$f"; done
  echo $$ > "$m/$name/cgroup.procs"
done
exec unshare --pid --fork --kill-child --mount --cgroup --mount-proc --propagation private /bin/sh -c '
set -e
name=$1 units=$2
shift 2
for m in "$@"; do mount -n --bind "$m/$name" "$m"; done
mount -n -t tmpfs gvisor-test-systemd /run
mount -n --bind "$units" /etc/systemd/system
printf "%s\n" "$GVISOR_TEST_SYSTEMD_BINDS" | while read -r src dst; do
  [ -n "$src" ] || continue
  mkdir -p "$dst"
  mount -n --bind "$src" "$dst"
done
unset GVISOR_TEST_SYSTEMD_BINDS
export container=gvisor-test SYSTEMD_UNIT_PATH=/etc/systemd/system
exec ` + systemdBinary + ` --system --unit=gvisor-test.target
' gvisor-test-systemd "$name" "$units" "$@"
`

// startSystemd starts the service manager and waits until it answers on its private socket. binds are mounted in
// its mount namespace (after its /run tmpfs), so that its units see a harness node's directories at the node's
// paths; a target outside /run must exist on the machine (ensureMountPoint).
func startSystemd(t testing.TB, binds ...mount) *systemd {
	t.Helper()
	if _, err := os.Stat(systemdBinary); err != nil {
		t.Fatalf("systemd: %v", err)
	}
	s := &systemd{unitDir: t.TempDir()}
	for _, target := range systemdStubTargets {
		s.writeUnit(t, target, "[Unit]\nDescription=the test's stand-in for "+target+"\n")
	}
	mounts, err := nodetest.CgroupMounts()
	if err != nil {
		t.Fatal(err)
	}
	cgroup := fmt.Sprintf("gvisor-test-systemd-%d", os.Getpid())
	args := append([]string{"-c", systemdScript, "gvisor-test-systemd", cgroup, s.unitDir}, mounts...)
	s.cmd = exec.Command("/bin/sh", args...)
	var lines []string
	for _, b := range binds {
		lines = append(lines, b.Source+" "+b.Target)
	}
	s.cmd.Env = append(os.Environ(), "GVISOR_TEST_SYSTEMD_BINDS="+strings.Join(lines, "\n"))
	s.cmd.Stdout, s.cmd.Stderr = os.Stderr, os.Stderr
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("starting systemd: %v", err)
	}
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill() // unshare --kill-child takes systemd, and with it its PID namespace, along
		_ = s.cmd.Wait()
		if left := nodetest.RemoveCgroups("/"+cgroup, 10*time.Second); len(left) > 0 {
			t.Errorf("cgroups of the test's systemd left behind: %v", left)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for s.pid == 0 {
		s.pid = systemdPID(s.cmd.Process.Pid)
		if time.Now().After(deadline) {
			t.Fatal("unshare did not start systemd")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for {
		out, err := s.systemctl(context.Background(), "is-system-running").CombinedOutput()
		if state := strings.TrimSpace(string(out)); err == nil || state == "degraded" {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the test's systemd did not come up: %v: %s", err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// writeUnit writes a unit file (or, with a name "<unit>.d/<file>.conf", a drop-in) into the unit dir.
func (s *systemd) writeUnit(t testing.TB, name, content string) {
	t.Helper()
	p := filepath.Join(s.unitDir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// systemdPID is the PID of unshare's child (systemd once the shell exec'd it), 0 while there is none.
func systemdPID(unshare int) int {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", unshare, unshare))
	var pid int
	if _, err := fmt.Sscan(string(raw), &pid); err != nil {
		return 0
	}
	if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(comm)) != "systemd" {
		return 0
	}
	return pid
}

// in returns a command that runs argv in systemd's PID and mount namespaces.
func (s *systemd) in(ctx context.Context, argv ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "nsenter", append([]string{"-t", fmt.Sprint(s.pid), "-p", "-m", "--"}, argv...)...)
}

// systemctl runs the machine's systemctl against this systemd (through its private socket).
func (s *systemd) systemctl(ctx context.Context, args ...string) *exec.Cmd {
	return s.in(ctx, append([]string{"systemctl"}, args...)...)
}

// show returns the unit's properties (systemctl show -p ...).
func (s *systemd) show(t testing.TB, unit string, props ...string) map[string]string {
	t.Helper()
	out, err := s.systemctl(context.Background(), "show", "-p", strings.Join(props, ","), unit).CombinedOutput()
	if err != nil {
		t.Fatalf("systemctl show %s: %v: %s", unit, err, out)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

// nextRun waits until unit (a oneshot) finished an invocation other than after, and returns its ID and result
// (success, exit-code, ...).
func (s *systemd) nextRun(t testing.TB, unit, after string, timeout time.Duration) (id, result string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		p := s.show(t, unit, "InvocationID", "ActiveState", "Result")
		if p["InvocationID"] != after && (p["ActiveState"] == "inactive" || p["ActiveState"] == "failed") {
			return p["InvocationID"], p["Result"]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not run again within %s (invocation %s, %s)", unit, timeout, p["InvocationID"], p["ActiveState"])
		}
		time.Sleep(200 * time.Millisecond)
	}
}
