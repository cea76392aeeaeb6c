// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package installertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

// Daemon is a real containerd process whose root, state and sockets live under temporary directories, serving
// CRI on <hostRoot>/run/containerd/containerd.sock so that the installer's own CRI verifier talks to it. It runs in
// its own mount namespace with a private /run and /opt (privateMounts), so that the fixed node paths its config
// names (the ttrpc and NRI sockets, shim sockets, /opt/containerd) are its own: see the package doc.
type Daemon struct {
	C       Containerd
	Config  string
	Socket  string
	dir     string
	cmd     *exec.Cmd
	exited  chan error
	logFile string
	// Starts counts (re)starts, including the first.
	Starts int
}

// StartDaemon starts containerd c on configFile and waits until CRI answers (or the process exits).
func StartDaemon(t testing.TB, c Containerd, configFile, hostRoot string) *Daemon {
	t.Helper()
	d := NewDaemon(t, c, configFile, hostRoot)
	if err := d.Start(context.Background()); err != nil {
		t.Fatalf("starting %s: %v\n%s", c, err, d.LogTail(40))
	}
	return d
}

// NewDaemon prepares containerd c on configFile without starting it: a node whose containerd is down (e.g. it
// refuses its config, as systemd keeps failing to start it). The first Restart starts it.
func NewDaemon(t testing.TB, c Containerd, configFile, hostRoot string) *Daemon {
	t.Helper()
	dir, err := os.MkdirTemp("", "ctd-")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(hostRoot, "run/containerd/containerd.sock")
	for _, p := range []string{filepath.Dir(sock), filepath.Join(dir, "run"), filepath.Join(dir, "opt")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d := &Daemon{C: c, Config: configFile, Socket: sock, dir: dir, logFile: filepath.Join(dir, "containerd.log")}
	t.Cleanup(func() {
		d.Stop()
		if t.Failed() {
			t.Logf("%s log (tail):\n%s", c, d.LogTail(40))
		}
		// containerd's own mounts died with its mount namespace; removal errors are not test failures.
		_ = os.RemoveAll(dir)
	})
	return d
}

// privateMounts runs as /bin/sh -c, with the daemon's directory and then containerd's argv, in the new mount
// namespace Start gives containerd (Go makes every mount in it private first, so nothing mounted here reaches the
// machine); why: see the package doc. It bind-mounts <dir>/run on /run, kept across restarts as a node keeps its
// /run (a restarted daemon finds what its shims left), and overlays the machine's /opt with a tmpfs taking the
// writes (a tmpfs, because not every file system under /tmp can back an overlay). Then it execs containerd in
// place: the process Start started is containerd, which Stop signals. mount -n, because mount(8) otherwise records
// its mounts in /run/mount/utab, creating /run/mount on the machine's /run before the first mount covers it.
const privateMounts = `set -e
dir=$1
shift
mount -n --bind "$dir/run" /run
if [ -d /opt ]; then
  mount -n -t tmpfs -o mode=0755 gvisor-test-opt "$dir/opt"
  mkdir "$dir/opt/upper" "$dir/opt/work"
  mount -n -t overlay -o "lowerdir=/opt,upperdir=$dir/opt/upper,workdir=$dir/opt/work" gvisor-test-opt /opt
fi
exec "$@"
`

// checkShared fails for a path the test shares with the daemon that the daemon's private /run or /opt would hide
// from one side (a TMPDIR under /run): the test would never see the socket, or containerd its config. The config is
// only read, which the overlay on /opt allows.
func (d *Daemon) checkShared() error {
	for _, p := range []struct {
		path   string
		hidden []string
	}{{filepath.Dir(d.Socket), []string{"/run", "/opt"}}, {d.dir, []string{"/run", "/opt"}}, {filepath.Dir(d.Config), []string{"/run"}}} {
		abs, err := filepath.Abs(p.path)
		if err != nil {
			return fmt.Errorf("resolving %s: %w", p.path, err)
		}
		if resolved, err := filepath.EvalSymlinks(abs); err == nil {
			abs = resolved
		}
		for _, private := range p.hidden {
			if abs == private || strings.HasPrefix(abs, private+"/") {
				return fmt.Errorf("%s is under %s, which the test daemon %s mounts privately: use a TMPDIR outside it", p.path, private, d.C)
			}
		}
	}
	return nil
}

// Start starts the process and returns once its socket accepts connections, or an error when it exits first
// (like systemd reporting a failed start of a notify unit).
func (d *Daemon) Start(ctx context.Context) error {
	if err := d.checkShared(); err != nil {
		return err
	}
	logf, err := os.OpenFile(d.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_ = os.Remove(d.Socket)
	d.cmd = exec.Command("/bin/sh", "-c", privateMounts, "gvisor-test-containerd", d.dir, d.C.Bin(), "--config", d.Config,
		"--root", filepath.Join(d.dir, "root"), "--state", filepath.Join(d.dir, "state"), "--address", d.Socket, "--log-level", "info")
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	d.cmd.Env = append(os.Environ(), "PATH="+d.C.Dir+":"+os.Getenv("PATH"))
	// A new mount namespace per start (Go also makes its mounts private); /run's content persists in d.dir.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Unshareflags: syscall.CLONE_NEWNS}
	if err := d.cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("starting %s in a mount namespace of its own (which needs root): %w", d.C, err)
	}
	d.Starts++
	exited := make(chan error, 1)
	d.exited = exited
	go func() { exited <- d.cmd.Wait(); logf.Close() }()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("%s exited at start: %v", d.C, err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if _, err := os.Stat(d.Socket); err == nil {
			vctx, cancel := context.WithTimeout(ctx, time.Second)
			err := verify.CRI{Socket: d.Socket}.Verify(vctx, verify.Up)
			cancel()
			if err == nil || !strings.Contains(err.Error(), "connect") {
				return nil
			}
		}
	}
	return errors.New("containerd did not open its socket within 20s")
}

// Stop terminates the process (SIGTERM, then SIGKILL after 10 s).
func (d *Daemon) Stop() {
	if d.cmd == nil || d.cmd.Process == nil {
		return
	}
	select {
	case err := <-d.exited:
		d.exited <- err
		return
	default:
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.exited:
		d.exited <- err
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		// Put the exit status back, as the other branches do, so that a later Stop sees the daemon gone.
		d.exited <- <-d.exited
	}
}

// Restart is Stop then Start: the test restarter.
func (d *Daemon) Restart(ctx context.Context) error {
	d.Stop()
	return d.Start(ctx)
}

func (d *Daemon) String() string { return "test restart of " + d.C.String() }

// LogTail returns the last n lines of the daemon's log.
func (d *Daemon) LogTail(n int) string { return TailFile(d.logFile, n) }

// TailFile returns the last n lines of the file at path ("" when it cannot be read): a daemon's log for a failure
// message.
func TailFile(path string, n int) string {
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Restarter wraps a daemon as the installer's restart.Restarter and counts restarts; Before, if set, runs before
// each restart (tests use it to break things the way a node can break).
type Restarter struct {
	D        *Daemon
	Restarts int
	Before   func(n int)
}

// Restart counts the restart, runs Before and restarts the daemon.
func (r *Restarter) Restart(ctx context.Context) error {
	r.Restarts++
	if r.Before != nil {
		r.Before(r.Restarts)
	}
	return r.D.Restart(ctx)
}

func (r *Restarter) String() string { return r.D.String() }
