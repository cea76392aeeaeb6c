// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	installertest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/installer"
)

// process is one component of the node (etcd, kube-apiserver, containerd, kubelet, ...), run inside the node by
// nsenter, its output in its own log file.
type process struct {
	name    string
	LogFile string
	cmd     *exec.Cmd
	exited  chan error
}

// startProcess starts argv inside the node with env (nil: a plain PATH, as systemd would) logging to logFile.
func (ns *namespaces) startProcess(name, logFile string, env []string, argv ...string) (*process, error) {
	logf, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	p := &process{name: name, LogFile: logFile, cmd: ns.nsenter(argv...), exited: make(chan error, 1)}
	if env == nil {
		env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root"}
	}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s in the node: %w", name, err)
	}
	go func() { p.exited <- p.cmd.Wait(); logf.Close() }()
	return p, nil
}

// running reports whether the process has not exited.
func (p *process) running() bool {
	select {
	case err := <-p.exited:
		p.exited <- err
		return false
	default:
		return true
	}
}

// exitErr is the process's exit error once it exited (nil while it runs).
func (p *process) exitErr() error {
	select {
	case err := <-p.exited:
		p.exited <- err
		if err == nil {
			return fmt.Errorf("%s exited", p.name)
		}
		return fmt.Errorf("%s exited: %w", p.name, err)
	default:
		return nil
	}
}

// stop sends SIGTERM to the component (nsenter's child), then SIGKILL after grace, and waits until it exited.
func (p *process) stop(grace time.Duration) {
	if !p.running() {
		return
	}
	target := p.cmd.Process.Pid
	if child, err := onlyChild(p.cmd.Process.Pid); err == nil {
		target = child
	}
	_ = syscall.Kill(target, syscall.SIGTERM)
	select {
	case err := <-p.exited:
		p.exited <- err
	case <-time.After(grace):
		_ = syscall.Kill(target, syscall.SIGKILL)
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		err := <-p.exited
		p.exited <- err
	}
}

// logTail is the last n lines of the process's log (installertest.TailFile), each cut to 400 characters: the
// controller-manager logs whole Node objects.
func (p *process) logTail(n int) string {
	lines := strings.Split(installertest.TailFile(p.LogFile, n), "\n")
	for i, l := range lines {
		if len(l) > 400 {
			lines[i] = l[:400] + " ..."
		}
	}
	return strings.Join(lines, "\n")
}
