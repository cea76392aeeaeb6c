// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// daemon is the node's containerd, started inside the holder's namespaces (nsenter), so that a restart finds the
// same mounts, the same /run and the same network: shims and sandboxes outlive it and are reconnected.
type daemon struct {
	n       *Node
	cmd     *exec.Cmd
	exited  chan error
	logFile string
	starts  int
}

// startTimeout bounds how long containerd may take to serve CRI (it starts in well under a second here).
const startTimeout = 30 * time.Second

func (d *daemon) start(ctx context.Context) error {
	n := d.n
	logf, err := os.OpenFile(d.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	// Not bound to ctx: containerd runs until stop.
	d.cmd = n.holder.nsenter(context.Background(), n.C.Bin(), "--config", ConfigPath, "--root", n.path("root"), "--state", n.path("state"),
		"--address", SocketPath, "--log-level", "info")
	// As systemd starts it: a plain environment. The wrapper comes first so that containerd runs it as the gVisor
	// shim; the bin dir (runsc), the release's own runc shim, then the system (runc, unshare, mount).
	path := strings.Join([]string{n.path("wrapper"), n.binDir, n.C.Dir, "/usr/sbin", "/usr/bin", "/sbin", "/bin"}, ":")
	d.cmd.Env = []string{"PATH=" + path, "HOME=/root"}
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := d.cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("starting %s in the node: %w", n.C, err)
	}
	d.starts++
	exited := make(chan error, 1)
	d.exited = exited
	go func() { exited <- d.cmd.Wait(); logf.Close() }()
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	var last error
	for {
		select {
		case err := <-exited:
			exited <- err
			return n.errorf("%s exited at start: %v", n.C, err)
		case <-ctx.Done():
			return n.errorf("%s does not serve CRI on %s within %s: %v", n.C, SocketPath, startTimeout, last)
		case <-time.After(20 * time.Millisecond):
		}
		vctx, vcancel := context.WithTimeout(ctx, time.Second)
		last = verify.CRI{Socket: n.Socket()}.Verify(vctx, verify.Up)
		vcancel()
		if last == nil {
			return nil
		}
		// containerd registers its gRPC services before it serves: a socket without the CRI service means that
		// the CRI plugin did not load (1.x: e.g. runc missing from a config's runtimes), and waiting is futile.
		if status.Code(last) == codes.Unimplemented {
			return n.errorf("%s serves no CRI (its CRI plugin did not load): %v", n.C, last)
		}
	}
}

func (d *daemon) running() bool {
	if d.cmd == nil || d.exited == nil {
		return false
	}
	select {
	case err := <-d.exited:
		d.exited <- err
		return false
	default:
		return true
	}
}

// stop sends SIGTERM (containerd leaves its shims running), then SIGKILL after 10 s.
func (d *daemon) stop() {
	if !d.running() {
		return
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.exited:
		d.exited <- err
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		err := <-d.exited
		d.exited <- err
	}
}

func (d *daemon) restart(ctx context.Context) error {
	d.stop()
	return d.start(ctx)
}

func (d *daemon) logTail(lines int) string { return installertest.TailFile(d.logFile, lines) }

// Restarter is the installer's restart.Restarter for the node: it restarts the node's containerd and counts.
type Restarter struct {
	N *Node
	// Restarts counts the restarts the installer asked for.
	Restarts int
}

// Restarter returns a new restarter for the node's containerd.
func (n *Node) Restarter() *Restarter { return &Restarter{N: n} }

// Restart counts the restart and restarts the node's containerd (Node.Restart).
func (r *Restarter) Restart(ctx context.Context) error {
	r.Restarts++
	return r.N.Restart(ctx)
}

func (r *Restarter) String() string { return "test restart of " + r.N.C.String() + " in its node" }

// exitDetail adds a failed command's stderr to its error.
func exitDetail(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}
