// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// bind is one bind mount inside the node: the host directory Source appears at the node path Target.
type bind struct{ Source, Target string }

// holder is the long-lived process that owns the node's mount and network namespaces: `unshare -m -n` runs a
// shell that mounts the node's file system, brings lo up, prints readyMarker and execs `sleep infinity`, so the
// process's PID stays the namespaces' handle for every `nsenter -t PID` and the namespaces die with the last
// process in them.
type holder struct {
	cmd    *exec.Cmd
	pid    int
	exited chan error
	// runName is the source name of the node's tmpfs on /run, unique to the node: it marks the mount table of the
	// node's mount namespace and of those copied from it (nodeProcs).
	runName string
	stderr  *bytes.Buffer
}

const readyMarker = "gvisor-test-node-ready"

// holderScript runs inside the new namespaces. A tmpfs on /run (named by the first argument) keeps what
// containerd, CNI and runsc create there (/run/netns, /run/containerd/..., /run/nri) private; then each "source
// target" argument pair is bind-mounted. mount -n, because mount(8) otherwise records its mounts in
// /run/mount/utab, creating /run/mount on the machine's /run before the tmpfs covers it.
const holderScript = `set -e
mount -n -t tmpfs -o mode=0755,size=256m "$1" /run
shift
while [ $# -gt 1 ]; do mkdir -p "$2"; mount -n --bind "$1" "$2"; shift 2; done
ip link set lo up
echo ` + readyMarker + `
exec sleep infinity
`

// startHolder starts the holder and waits (bounded by ctx) until its mounts are in place; runName names its tmpfs
// on /run and must be unique to the node.
func startHolder(ctx context.Context, runName string, binds []bind) (*holder, error) {
	args := []string{"-m", "-n", "--propagation", "private", "/bin/sh", "-c", holderScript, "gvisor-test-node", runName}
	for _, b := range binds {
		args = append(args, b.Source, b.Target)
	}
	h := &holder{cmd: exec.Command("unshare", args...), exited: make(chan error, 1), runName: runName, stderr: &bytes.Buffer{}}
	h.cmd.Stderr = h.stderr
	// Its own process group: a Ctrl-C of `go test` reaches the test, which then cleans up, not the node directly.
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := h.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the node's namespace holder (unshare -m -n): %w", err)
	}
	h.pid = h.cmd.Process.Pid
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
	go func() {
		h.exited <- h.cmd.Wait()
	}()
	select {
	case ok := <-ready:
		if !ok {
			werr := <-h.exited
			return nil, fmt.Errorf("the node's namespace holder exited while mounting (%v): %s", werr, strings.TrimSpace(h.stderr.String()))
		}
	case <-ctx.Done():
		h.kill()
		return nil, fmt.Errorf("the node's namespace holder was not ready in time: %w (stderr: %s)", ctx.Err(), h.stderr.String())
	}
	mntNS, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", h.pid))
	if err != nil {
		h.kill()
		return nil, fmt.Errorf("reading the holder's mount namespace: %w", err)
	}
	self, _ := os.Readlink("/proc/self/ns/mnt")
	if mntNS == self {
		h.kill()
		return nil, errors.New("the holder shares the test's mount namespace: unshare -m did not take effect")
	}
	return h, nil
}

// nsenter returns a command that runs argv inside the node's mount and network namespaces, killed when ctx ends.
// nsenter execs argv in its own process (no fork without -p), so the command's PID is argv's.
func (h *holder) nsenter(ctx context.Context, argv ...string) *exec.Cmd {
	args := append([]string{"-t", fmt.Sprint(h.pid), "-m", "-n", "--"}, argv...)
	return exec.CommandContext(ctx, "nsenter", args...)
}

// kill ends the holder and waits for it (bounded).
func (h *holder) kill() {
	_ = h.cmd.Process.Kill()
	select {
	case err := <-h.exited:
		h.exited <- err
	case <-time.After(10 * time.Second):
	}
}
