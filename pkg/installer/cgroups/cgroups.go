// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Package cgroups decides whether a node's gVisor sandboxes would be held by their pods' cgroups: the host's cgroup
// hierarchy and the node's cgroup driver together.
//
// The kubelet's systemd driver names a pod's cgroup parent as a systemd slice (kubepods-pod<uid>.slice) and
// containerd passes the sandbox's cgroup as `slice:prefix:name`. runsc places a sandbox there on cgroup v2 (with
// or without its systemd-cgroup flag), but on cgroup v1 it takes the whole string as one relative cgroup name: the
// sandbox lands in `/system.slice/containerd.service/kubepods-pod<uid>.slice:cri-containerd:<id>`, outside the pod's
// slice, so no limit of the pod holds (measured on a systemd node, test/e2e TestExtensionOnGardenersNode). gVisor
// is refused there, by name, before the node is touched. The cgroupfs driver on either hierarchy and the systemd
// driver on cgroup v2 are proven by real pods.
package cgroups

import (
	"context"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/refusal"
)

// Hierarchy is a host's cgroup hierarchy.
type Hierarchy int

const (
	// V1 is the legacy hierarchy (a tmpfs of per-controller cgroup v1 mounts, with or without systemd's hybrid
	// cgroup2 mount beside them: runsc treats both as v1).
	V1 Hierarchy = 1
	// V2 is the unified hierarchy (cgroup2 mounted at the root).
	V2 Hierarchy = 2
)

func (h Hierarchy) String() string {
	if h == V2 {
		return "cgroup v2"
	}
	return "cgroup v1"
}

// Root is where the cgroup file system is mounted, on a node and in a container.
const Root = "/sys/fs/cgroup"

// Detect reads the hierarchy from the file system at root (Root): cgroup2 is v2, a tmpfs is v1.
func Detect(root string) (Hierarchy, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(root, &st); err != nil {
		return 0, fmt.Errorf("reading the cgroup hierarchy at %s: %w", root, err)
	}
	switch st.Type {
	case unix.CGROUP2_SUPER_MAGIC:
		return V2, nil
	case unix.TMPFS_MAGIC:
		return V1, nil
	default:
		return 0, fmt.Errorf("reading the cgroup hierarchy at %s: file system type %#x is neither cgroup2 nor a tmpfs of cgroup v1 mounts", root, st.Type)
	}
}

// Node is a node's cgroup hierarchy and cgroup driver.
type Node struct {
	Hierarchy     Hierarchy
	SystemdDriver bool
}

// Driver names the cgroup driver.
func (n Node) Driver() string {
	if n.SystemdDriver {
		return "systemd"
	}
	return "cgroupfs"
}

func (n Node) String() string {
	return fmt.Sprintf("%s with the %s cgroup driver", n.Hierarchy, n.Driver())
}

// Read reads a node's hierarchy from the file system at root (Detect) and its driver from containerd.
func Read(ctx context.Context, root string, driver verify.CgroupDriverReader) (Node, error) {
	h, err := Detect(root)
	if err != nil {
		return Node{}, err
	}
	systemd, err := driver.SystemdCgroupDriver(ctx)
	if err != nil {
		return Node{Hierarchy: h}, err
	}
	return Node{Hierarchy: h, SystemdDriver: systemd}, nil
}

// Check refuses cgroup v1 with the systemd cgroup driver (the package doc says why) and accepts the rest.
func Check(h Hierarchy, systemdDriver bool) error {
	if h != V1 || !systemdDriver {
		return nil
	}
	return &refusal.Error{
		Path:   "this node's cgroups (cgroup v1 with the systemd cgroup driver)",
		Reason: "runsc places gVisor sandboxes in systemd slices only on cgroup v2; on cgroup v1 a gVisor pod would run outside its pod's cgroup, not held by its CPU and memory limits",
		Fix:    "a machine image with cgroup v2 for the worker pool (Garden Linux runs it since release 934), or remove gvisor from the worker pool's container runtimes",
	}
}
