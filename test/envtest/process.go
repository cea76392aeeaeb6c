// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// process is a child process whose output goes to a log file, so a failure can quote the log's tail.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	waitErr error
}

func startProcess(name, logPath string, argv ...string) (*process, error) {
	return startProcessEnv(name, logPath, nil, argv...)
}

// startProcessEnv is startProcess with the child's environment env (nil: this process's).
func startProcessEnv(name, logPath string, env []string, argv ...string) (*process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("%s: creating log %s: %w", name, logPath, err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = env
	// Own process group: a Ctrl-C in `make demo` reaches us first, and we stop the child in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("%s: starting %s: %w", name, argv[0], err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// logTail returns the last lines of the process log, for error messages.
func (p *process) logTail() string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}

// stop sends SIGTERM and waits up to 20s before killing.
func (p *process) stop() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not stop within 20s after SIGTERM; killed", p.name)
	}
}

// waitHealthy polls url (self-signed TLS: only liveness matters here) until it answers 200 "ok",
// the process exits, or the timeout passes.
func (p *process) waitHealthy(ctx context.Context, url string, timeout time.Duration) error {
	httpClient := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // local self-signed serving cert
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var lastErr error
	for {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before becoming healthy (%v); log %s:\n%s", p.name, p.waitErr, p.logPath, p.logTail())
		case <-ctx.Done():
			return fmt.Errorf("%s not healthy at %s within %s (last error: %v); log %s:\n%s", p.name, url, timeout, lastErr, p.logPath, p.logTail())
		case <-time.After(200 * time.Millisecond):
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := httpClient.Do(req)
		if err != nil {
			lastErr = err
			continue
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		lastErr = fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(body.String()))
	}
}

// Process is a child process as this package runs its own (own process group, output to a log file), for
// harnesses outside it that run a binary and measure it (test/seedbench).
type Process struct{ p *process }

// StartProcess starts argv with the environment env (nil: this process's), its output going to logPath.
func StartProcess(name, logPath string, env []string, argv ...string) (*Process, error) {
	p, err := startProcessEnv(name, logPath, env, argv...)
	if err != nil {
		return nil, err
	}
	return &Process{p: p}, nil
}

// WaitHealthy polls url until it answers 200, the process exits, or timeout passes.
func (p *Process) WaitHealthy(ctx context.Context, url string, timeout time.Duration) error {
	return p.p.waitHealthy(ctx, url, timeout)
}

// Stop sends SIGTERM and waits up to 20s before killing. A process that had exited before Stop is an error: it
// was meant to run until then.
func (p *Process) Stop() error {
	select {
	case <-p.p.done:
		return fmt.Errorf("%s had exited before it was stopped (%v); log %s", p.p.name, p.p.waitErr, p.p.logPath)
	default:
	}
	return p.p.stop()
}

// Pid is the process ID.
func (p *Process) Pid() int { return p.p.cmd.Process.Pid }

// Done is closed when the process has exited; Err then says how.
func (p *Process) Done() <-chan struct{} { return p.p.done }

// Err is the process's exit error, valid once Done is closed.
func (p *Process) Err() error { return p.p.waitErr }

// LogPath is the file the process's output goes to.
func (p *Process) LogPath() string { return p.p.logPath }
