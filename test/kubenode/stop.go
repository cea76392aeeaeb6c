// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package kubenode

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	nodetest "github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/node"
)

// Stop ends the node: the kubelet first (so that it does not restart what dies), then the PID namespace's init,
// whose death kills every process of the node (control plane, containerd, shims, sandboxes) and ends its mounts
// and network; then the node's cgroups, the mount points it created on the machine and its work directory. It
// returns what it could not remove; a second call does nothing.
func (n *Node) Stop() error {
	n.standin.close()
	n.standin = nil
	if k := n.procs["kubelet"]; k != nil {
		k.stop(10 * time.Second)
	}
	var errs []error
	if n.ns != nil {
		n.ns.kill()
		for name, p := range n.procs {
			select {
			case err := <-p.exited:
				p.exited <- err
			case <-time.After(10 * time.Second):
				errs = append(errs, fmt.Errorf("%s still runs after the node's PID namespace was killed", name))
			}
		}
		n.ns = nil
	}
	n.procs = map[string]*process{}
	if left := n.removeCgroups(); len(left) > 0 {
		errs = append(errs, fmt.Errorf("cgroups of the node left: %v", left))
	}
	if err := n.mountPoints.Release(); err != nil {
		errs = append(errs, err)
	}
	n.mountPoints = nil
	if n.work != "" {
		if err := os.RemoveAll(n.work); err != nil {
			errs = append(errs, fmt.Errorf("removing the node's work directory: %w", err))
		}
		n.work = ""
	}
	return errors.Join(errs...)
}

// removeCgroups removes the kubelet's cgroup root and everything below it in every hierarchy (nodetest.RemoveCgroups).
func (n *Node) removeCgroups() []string {
	if n.cgroupRoot == "" {
		return nil
	}
	return nodetest.RemoveCgroups(n.cgroupRoot, 15*time.Second)
}

// LeakedMounts lists the mounts of the node that the machine's own mount table shows (the test process's mount
// namespace is the machine's): none should, since the node's namespace has private propagation towards it.
func (n *Node) LeakedMounts() ([]string, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var leaked []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		mountPoint := fields[4]
		for _, b := range n.binds() {
			if mountPoint == b.Target && b.Target != "/var" || strings.HasPrefix(mountPoint, n.work) {
				leaked = append(leaked, mountPoint)
			}
		}
	}
	return leaked, nil
}
