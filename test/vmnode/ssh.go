// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/testutil"

	"golang.org/x/crypto/ssh"
)

// sshClient is one ssh connection to the guest's root; every Run is a session of it.
type sshClient struct {
	client *ssh.Client
}

func (c *sshClient) close() {
	if c != nil && c.client != nil {
		c.client.Close()
	}
}

// dialSSH connects to the guest's sshd through the forwarded port, as root with the disk's key. The guest's host
// key is new on every overlay and not checked: the port is the machine's loopback, forwarded by our own QEMU.
func (n *Node) dialSSH(ctx context.Context) (*sshClient, error) {
	key, err := os.ReadFile(filepath.Join(n.cfg.Disk, "id_ed25519"))
	if err != nil {
		return nil, err
	}
	signer, err := ssh.ParsePrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("the VM node's key: %w", err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", n.sshPort)
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var conn net.Conn
	if n.cfg.Network != nil {
		conn, err = n.cfg.Network.Dial(dctx, "tcp", addr)
	} else {
		conn, err = (&net.Dialer{}).DialContext(dctx, "tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	// The handshake's deadline: QEMU accepts the forwarded connection at once, the guest's sshd answers only once
	// it runs.
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	sc, chans, reqs, err := ssh.NewClientConn(conn, addr, &ssh.ClientConfig{
		User:            "root",
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), //nolint:gosec // see the function's doc
	})
	if err != nil {
		conn.Close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	return &sshClient{client: ssh.NewClient(sc, chans, reqs)}, nil
}

// waitSSH waits until the guest's sshd lets root in, QEMU exits, BootTimeout passes or the guest stays silent
// (silentBootLimit).
func (n *Node) waitSSH(ctx context.Context) error {
	started := time.Now()
	// A reboot's wait grows with the pace its guest ran at before (1 at the first boot).
	bootTimeout := n.Bound(BootTimeout)
	deadline := started.Add(bootTimeout)
	var last error
	for time.Now().Before(deadline) {
		// A restored guest is past its boot: it writes nothing to its console.
		if n.incoming == "" && time.Since(started) > n.policy.silentLimit && !n.bootWrote() {
			return fmt.Errorf("%w for %s after QEMU started (last ssh attempt: %v)", errSilentGuest, n.policy.silentLimit, last)
		}
		select {
		case err := <-n.exited:
			n.exited <- err
			n.qemu = nil
			return fmt.Errorf("QEMU exited while the node booted (%v); console:\n%s", err, n.Console(40))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		c, err := n.dialSSH(ctx)
		if err == nil {
			n.ssh = c
			return nil
		}
		last = err
		time.Sleep(2 * time.Second)
	}
	return fmt.Errorf("the VM node's sshd did not answer within %s (last: %v); console:\n%s", bootTimeout, last, n.Console(40))
}

// Run runs script with bash as root in the guest and returns its combined output; a non-zero exit is an error that
// carries the output.
func (n *Node) Run(ctx context.Context, script string) (string, error) {
	if n.ssh == nil {
		return "", fmt.Errorf("the VM node is not running")
	}
	s, err := n.ssh.client.NewSession()
	if err != nil {
		return "", fmt.Errorf("ssh session to the VM node: %w", err)
	}
	defer s.Close()
	// One buffer for both streams, locked: the session copies stdout and stderr from two goroutines.
	var out testutil.SyncBuffer
	s.Stdout, s.Stderr = &out, &out
	done := make(chan error, 1)
	go func() { done <- s.Run("bash --norc --noprofile -euo pipefail -c " + shellQuote(script)) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = s.Signal(ssh.SIGKILL)
		s.Close()
		return out.String(), fmt.Errorf("on the VM node: %w; output so far:\n%s", ctx.Err(), out.String())
	}
	if err != nil {
		return out.String(), fmt.Errorf("on the VM node: %w:\n%s", err, out.String())
	}
	return out.String(), nil
}

// shellQuote quotes s as one word of a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
