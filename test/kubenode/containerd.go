// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// CRISocket is containerd's CRI socket as the test process reaches it (the node's /run/containerd is bound from
// the work directory).
func (n *Node) CRISocket() string { return n.path("run-containerd", "containerd.sock") }

// startContainerdWithImages starts containerd and imports the pause and busybox images and Config.Images.
func (n *Node) startContainerdWithImages(ctx context.Context) error {
	if err := n.startContainerd(ctx); err != nil {
		return err
	}
	imgs, err := nodetest.WriteImages(n.path(), n.cfg.Tools)
	if err != nil {
		return err
	}
	return n.ImportImages(ctx, append([]string{imgs.Pause, imgs.Busybox}, n.cfg.Images...)...)
}

// startContainerd starts the node's containerd as systemd would (a plain environment, PATH with the test-only shim
// wrapper first, then the bin dir, the release's own runc shim and the system's runc) and waits until it serves
// CRI.
func (n *Node) startContainerd(ctx context.Context) error {
	c := n.cfg.Containerd
	path := strings.Join([]string{n.path("wrapper"), BinDir, c.Dir, "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}, ":")
	p, err := n.start("containerd", []string{"PATH=" + path, "HOME=/root"}, c.Bin(), "--config", "/etc/containerd/config.toml", "--log-level", "info")
	if err != nil {
		return err
	}
	n.containerd = p
	n.containerdUp++
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := p.exitErr(); err != nil {
			return fmt.Errorf("%w\n%s", err, p.logTail(30))
		}
		vctx, cancel := context.WithTimeout(ctx, time.Second)
		err := verify.CRI{Socket: n.CRISocket()}.Verify(vctx, verify.Up)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not serve CRI within 30s: %w\n%s", c, err, p.logTail(30))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// RestartContainerd stops containerd (SIGTERM: shims and sandboxes keep running, as under systemd's
// KillMode=process) and starts it again: what the systemd stand-in does for `RestartUnit containerd.service`.
func (n *Node) RestartContainerd(ctx context.Context) error {
	if n.containerd != nil {
		n.containerd.stop(10 * time.Second)
	}
	return n.startContainerd(ctx)
}

// ImportImages imports image tarballs into containerd's k8s.io namespace with the release's ctr, inside the node.
func (n *Node) ImportImages(ctx context.Context, tarballs ...string) error {
	ctr := filepath.Join(n.cfg.Containerd.Dir, "ctr")
	for _, tarball := range tarballs {
		if _, err := os.Stat(tarball); err != nil {
			return fmt.Errorf("image tarball: %w", err)
		}
		cmd := n.ns.nsenter(ctr, "--address", "/run/containerd/containerd.sock", "-n", "k8s.io", "images", "import", tarball)
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		out, err := runWithContext(cctx, cmd)
		cancel()
		if err != nil {
			return fmt.Errorf("ctr images import %s: %w\n%s", tarball, err, out)
		}
	}
	return nil
}
