// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package vmnode

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ShareDir is where the guest sees the node's share (the disk's fstab mounts it there at boot).
const ShareDir = "/mnt/host"

// AddFile makes the machine's file path visible in the guest as ShareDir/name (name may hold folders): a hard link
// into the share where the file system allows, else a copy. The share is read-only for the guest.
func (n *Node) AddFile(name, path string) error {
	if name == "" || filepath.IsAbs(name) || strings.Contains(filepath.Clean(name), "..") {
		return fmt.Errorf("share file name %q: want a relative path inside the share", name)
	}
	dst := filepath.Join(n.share, name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	_ = os.Remove(dst)
	if err := os.Link(path, dst); err == nil {
		return nil
	}
	return copyFile(path, dst)
}

// copyFile copies src to dst with src's mode.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s into the VM node's share: %w", src, err)
	}
	return out.Close()
}
