// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
)

// proofLogs is where, below containerd's run directory, each proof sandbox gets a log directory of its own
// (PodSandboxConfig.LogDirectory). containerd's CRI passes it to the shim as the OCI annotation
// io.kubernetes.cri.sandbox-log-directory, and the runsc shim then starts runsc with
// --panic-log=<dir>/gvisor_panic.log, which `runsc boot` makes its stderr: a sandbox that dies at boot leaves
// its FATAL ERROR there, while containerd's CRI error says only "EOF". The run directory is used because both
// the installation DaemonSet (hostPath /run/containerd at <host-root>/run/containerd) and
// `gvisor-installer prove` on the host (host root /) can write it, and it is a tmpfs that a reboot clears.
const proofLogs = "gvisor-installer/proof"

// logDir is one proof's log directory: host is the installer's path (under the host root), node containerd's.
// run is containerd's run directory in the installer's view, which proofLogs is relative to.
type logDir struct{ run, host, node string }

// logDirs is the directory holding every proof's log directory, in both views. Socket is
// <host-root>/run/containerd/containerd.sock in the installer, so containerd sees <dir of socket> as
// /run/containerd; a socket elsewhere (a test daemon sharing the installer's file system) is taken as seen by
// containerd at the same path.
func logDirs(socket string) logDir {
	run := filepath.Dir(socket)
	d := logDir{run: run, host: filepath.Join(run, proofLogs), node: filepath.Join(run, proofLogs)}
	if strings.HasSuffix(socket, verify.CRISocket) {
		d.node = filepath.Join(filepath.Dir(verify.CRISocket), proofLogs)
	}
	return d
}

// newLogDir creates the log directory of the proof sandbox uid, private to root (runsc's logs name node paths).
func newLogDir(socket, uid string) (logDir, error) {
	d := logDirs(socket)
	d.host, d.node = filepath.Join(d.host, uid), filepath.Join(d.node, uid)
	if err := os.MkdirAll(d.host, 0o700); err != nil {
		return logDir{}, fmt.Errorf("creating the proof sandbox's log directory %s: %w", d.node, err)
	}
	return d, nil
}

// remove deletes the directory and, when no other proof's directory is left in them, its parents up to
// containerd's run directory, so that a proof leaves nothing on the node.
func (d logDir) remove() error {
	if err := os.RemoveAll(d.host); err != nil {
		return fmt.Errorf("removing the proof sandbox's log directory %s: %w", d.node, err)
	}
	d.removeEmptyParents()
	return nil
}

// removeAllLogDirs deletes the log directories earlier, interrupted proofs left (their sandboxes are removed
// by then: removeAll).
func removeAllLogDirs(socket string) error {
	d := logDirs(socket)
	if err := os.RemoveAll(d.host); err != nil {
		return fmt.Errorf("removing the log directories of earlier proofs in %s: %w", d.node, err)
	}
	d.removeEmptyParents()
	return nil
}

// removeEmptyParents removes the parents of d.host below the run directory while they are empty; one that is
// not empty (another proof's directory is in it) stays, which os.Remove reports and we accept.
func (d logDir) removeEmptyParents() {
	for dir := filepath.Dir(d.host); strings.HasPrefix(dir, d.run+"/"); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			return
		}
	}
}
