// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// bind is one bind mount inside the node: Source (a path on the machine) appears at Target (a node path).
type bind struct {
	Source, Target string
	// File binds a regular file (a sysctl stand-in) instead of a directory.
	File bool
}

// namespaces is the node's PID 1: `unshare -m -n -p -f --mount-proc` runs initScript, which lays out the node's
// file system and network and then only reaps orphans (shims and sandboxes re-parent to it). Its death ends every
// process of the node (the kernel kills a PID namespace with its init) and, with them, the mounts and the network.
type namespaces struct {
	cmd    *exec.Cmd
	pid    int
	exited chan error
	stderr strings.Builder
}

const readyMarker = "gvisor-kubenode-ready"

// quote is sh single-quoting.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// cgroupEntry moves the init into the node's cgroup in every hierarchy (PID 1 is itself inside the new PID
// namespace) and re-executes the node's init in a new cgroup namespace rooted there ($NODE_INIT, initScript).
const cgroupEntry = `set -e
for procs in "$@"; do echo 1 > "$procs"; done
exec unshare -C /bin/sh -c "$NODE_INIT"
`

// initScript runs as the node's PID 1 in its cgroup namespace: it mounts (mount -n: no /run/mount/utab on the
// machine) the node's file system (shared propagation, which the kubelet needs for its volume mounts; a tmpfs on
// /run; the binds; each cgroup hierarchy's node subtree over the hierarchy, so that the node's cgroup "/" is its
// own, as on a real node: the kubelet's kubepods and the sandbox proof's /kubepods/besteffort land below it),
// brings up the node's addresses on lo (the node IP, and the kubernetes Service's ClusterIP, so that pods reach the
// API server without kube-proxy) and waits. As PID 1 it ignores SIGTERM; the harness ends it with SIGKILL.
func initScript(binds []bind, cgroups []cgroupBind, addrs []string) string {
	var b strings.Builder
	b.WriteString("set -e\nmount -n --make-rshared /\nmount -n -t tmpfs -o mode=0755,size=512m gvisor-kubenode-run /run\n")
	for _, m := range binds {
		if !m.File {
			fmt.Fprintf(&b, "mkdir -p %s\n", quote(m.Target))
		}
		fmt.Fprintf(&b, "mount -n --bind %s %s\n", quote(m.Source), quote(m.Target))
	}
	for _, c := range cgroups {
		fmt.Fprintf(&b, "mount -n --bind %s %s\n", quote(c.Node), quote(c.Hierarchy))
	}
	b.WriteString("ip link set lo up\n")
	for _, a := range addrs {
		fmt.Fprintf(&b, "ip addr add %s dev lo\n", a)
	}
	b.WriteString("echo " + readyMarker + "\nset +e\nwhile :; do sleep 3600 & wait $!; done\n")
	return b.String()
}

// cgroupBind is one cgroup hierarchy's mount point and the node's directory in it.
type cgroupBind struct{ Hierarchy, Node string }

// startNamespaces starts the node's PID 1 and waits (bounded by ctx) until its mounts and addresses are in place.
func startNamespaces(ctx context.Context, binds []bind, cgroups []cgroupBind, addrs []string) (*namespaces, error) {
	ns := &namespaces{exited: make(chan error, 1)}
	args := []string{"-m", "-n", "-p", "-f", "--mount-proc", "--propagation", "private", "/bin/sh", "-c", cgroupEntry, "gvisor-kubenode"}
	for _, c := range cgroups {
		args = append(args, filepath.Join(c.Node, "cgroup.procs"))
	}
	ns.cmd = exec.Command("unshare", args...)
	ns.cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "NODE_INIT=" + initScript(binds, cgroups, addrs)}
	ns.cmd.Stderr = &ns.stderr
	// Its own process group, and killed with the test binary: a node never outlives the process that made it.
	ns.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdout, err := ns.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := ns.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the node's namespaces (unshare -m -n -p): %w", err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == readyMarker {
				ready <- true
			}
		}
		ready <- false
	}()
	go func() { ns.exited <- ns.cmd.Wait() }()
	select {
	case ok := <-ready:
		if !ok {
			return nil, fmt.Errorf("the node's init exited while setting up: %v: %s", <-ns.exited, ns.stderr.String())
		}
	case <-ctx.Done():
		ns.kill()
		return nil, fmt.Errorf("waiting for the node's namespaces: %w", ctx.Err())
	}
	// unshare -f forks: the init is unshare's only child.
	pid, err := onlyChild(ns.cmd.Process.Pid)
	if err != nil {
		ns.kill()
		return nil, err
	}
	ns.pid = pid
	return ns, nil
}

// onlyChild returns the PID of the single child of process pid.
func onlyChild(pid int) (int, error) {
	for i := 0; i < 100; i++ {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		if err != nil {
			return 0, fmt.Errorf("reading the children of process %d: %w", pid, err)
		}
		if f := strings.Fields(string(data)); len(f) == 1 {
			var child int
			_, err := fmt.Sscan(f[0], &child)
			return child, err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0, fmt.Errorf("process %d has not exactly one child", pid)
}

// joinCgroup moves the shell into the node's root cgroup in every hierarchy (inside the node, each hierarchy's root
// is the node's directory), then runs the command: a process of the node is in the node's cgroups, as the
// children of its init are.
const joinCgroup = `for procs in /sys/fs/cgroup/*/cgroup.procs /sys/fs/cgroup/cgroup.procs; do [ -e "$procs" ] && echo $$ > "$procs"; done; exec "$@"`

// nsenter returns a command that runs argv inside the node: its mounts, its network, its PID and cgroup namespaces
// and its cgroups. nsenter forks into the PID namespace and relays the child's exit status; signal the child
// (onlyChild) to stop it.
func (ns *namespaces) nsenter(argv ...string) *exec.Cmd {
	args := append([]string{"-t", fmt.Sprint(ns.pid), "-m", "-n", "-p", "-C", "--", "/bin/sh", "-c", joinCgroup, "node"}, argv...)
	cmd := exec.Command("nsenter", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// netnsenter returns a command that runs argv on the machine's file system inside the node's network only: the
// helm and kubectl CLIs reach the node's API server this way.
func (ns *namespaces) netnsenter(ctx context.Context, argv ...string) *exec.Cmd {
	args := append([]string{"-t", fmt.Sprint(ns.pid), "-n", "--"}, argv...)
	return exec.CommandContext(ctx, "nsenter", args...)
}

// kill ends the init with SIGKILL (and so the whole PID namespace) and waits for it.
func (ns *namespaces) kill() {
	if ns.cmd == nil || ns.cmd.Process == nil {
		return
	}
	if ns.pid > 0 {
		_ = syscall.Kill(ns.pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(-ns.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case err := <-ns.exited:
		ns.exited <- err
	case <-time.After(30 * time.Second):
	}
}

// dial opens a TCP connection from inside the node's network namespace: the socket is created on an OS thread
// that joined the namespace for the dial and then returns to the machine's; the connection then works from any
// goroutine. The test's clients (and the in-process gardener-resource-manager) reach the node's API server this
// way, without any route out of the namespace. The thread must not end while it is locked: children started with
// Pdeathsig from it (every process of the node) would be killed with it.
func (ns *namespaces) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	type result struct {
		conn net.Conn
		err  error
	}
	// An IP literal only: for a host name, Go's dialer may race connections from goroutines on other threads,
	// outside the namespace.
	if host, _, err := net.SplitHostPort(addr); err != nil || net.ParseIP(host) == nil {
		return nil, fmt.Errorf("dialing %s into the node: only IP addresses can be dialled there", addr)
	}
	done := make(chan result, 1)
	go func() {
		c, err := dialIn(ctx, ns.pid, network, addr)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		return r.conn, r.err
	case <-ctx.Done():
		go func() { // the dial may still succeed: close what it returns
			if r := <-done; r.conn != nil {
				r.conn.Close()
			}
		}()
		return nil, errors.Join(ctx.Err(), errors.New("dialing into the node"))
	}
}

// listen opens a TCP listener inside the node's network namespace, the way dial opens connections: the socket is
// created there and stays there, and the test process accepts on it from any goroutine. Tests serve there what a
// node's kube-proxy would (a Service's port).
func (ns *namespaces) listen(network, addr string) (net.Listener, error) {
	if host, _, err := net.SplitHostPort(addr); err != nil || net.ParseIP(host) == nil {
		return nil, fmt.Errorf("listening on %s in the node: only IP addresses can be listened on there", addr)
	}
	type result struct {
		l   net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.err = inNetns(ns.pid, func() error {
			var err error
			r.l, err = net.Listen(network, addr)
			return err
		})
		if r.err != nil && r.l != nil {
			r.l.Close() // listening worked, returning to the machine's namespace did not
			r.l = nil
		}
		done <- r
	}()
	r := <-done
	return r.l, r.err
}

// inNetns runs f on a thread that is in the network namespace of process pid for f only.
func inNetns(pid int, f func() error) error {
	runtime.LockOSThread()
	own, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("opening the machine's network namespace: %w", err)
	}
	defer unix.Close(own)
	node, err := unix.Open(fmt.Sprintf("/proc/%d/ns/net", pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("opening the node's network namespace: %w", err)
	}
	defer unix.Close(node)
	if err := unix.Setns(node, unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("joining the node's network namespace: %w", err)
	}
	fErr := f()
	if err := unix.Setns(own, unix.CLONE_NEWNET); err != nil {
		// The thread stays locked and ends with this goroutine rather than serve others in the node's network.
		return errors.Join(fErr, fmt.Errorf("returning to the machine's network namespace: %w", err))
	}
	runtime.UnlockOSThread()
	return fErr
}

// dialIn dials from a thread that is in the network namespace of process pid for the dial only.
func dialIn(ctx context.Context, pid int, network, addr string) (net.Conn, error) {
	var c net.Conn
	err := inNetns(pid, func() error {
		var d net.Dialer
		var err error
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	if err != nil && c != nil {
		c.Close()
		c = nil
	}
	return c, err
}
