// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package nodetest

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// proc is what the harness needs to know of a process in /proc.
type proc struct {
	pid, ppid int
	// mountinfo is the process's mount table (/proc/PID/mountinfo).
	mountinfo string
	cgroups   string
	cmdline   []string
}

func (p proc) String() string { return fmt.Sprintf("pid %d %q", p.pid, p.cmdline) }

// listProcs reads every process in /proc; processes that exit while it reads are skipped.
func listProcs() []proc {
	entries, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		// The command name in parentheses may contain spaces: the fields after the last ')' are fixed.
		i := bytes.LastIndexByte(stat, ')')
		fields := strings.Fields(string(stat[i+1:]))
		if i < 0 || len(fields) < 2 {
			continue
		}
		if fields[0] == "Z" {
			continue // exited, waiting for its parent: nothing left to kill
		}
		ppid, _ := strconv.Atoi(fields[1])
		p := proc{pid: pid, ppid: ppid}
		mounts, _ := os.ReadFile(filepath.Join(dir, "mountinfo"))
		p.mountinfo = string(mounts)
		cg, _ := os.ReadFile(filepath.Join(dir, "cgroup"))
		p.cgroups = string(cg)
		raw, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		p.cmdline = strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		out = append(out, p)
	}
	return out
}

// nodeProcs returns the node's processes: those whose mount table has the node's own /run tmpfs, i.e. those in
// the holder's mount namespace or in one copied from it (containerd; shims, to which the shim wrapper gives a
// mount namespace of their own), their descendants (runsc sandboxes and gofers, which have namespaces of their
// own, stay children of their shim, a subreaper), and anything in the node's cgroups. The holder itself is
// included while it lives.
//
// Never by a PID alone (a dead process's PID may belong to another one by now), nor by namespace inode numbers:
// the kernel reuses them once a namespace is gone, so after the holder's death an unrelated process in a new
// namespace (a test daemon of another package: each runs in a mount namespace of its own) could have the
// holder's number, and the cleanup would kill it. The tmpfs's name is unique to the node.
func (n *Node) nodeProcs() []proc {
	all := listProcs()
	in := map[int]bool{}
	runMount := " - tmpfs " + n.holder.runName + " "
	for _, p := range all {
		inNS := strings.Contains(p.mountinfo, runMount)
		inCgroup := strings.Contains(p.cgroups, ":"+n.cgroupParent+"/") || strings.HasSuffix(strings.TrimSpace(p.cgroups), ":"+n.cgroupParent)
		if inNS || inCgroup {
			in[p.pid] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, p := range all {
			if !in[p.pid] && in[p.ppid] {
				in[p.pid], changed = true, true
			}
		}
	}
	var out []proc
	for _, p := range all {
		if in[p.pid] && p.pid != os.Getpid() {
			out = append(out, p)
		}
	}
	return out
}

// RunscSandboxCmdline returns the command line of the runsc sandbox process ("runsc-sandbox ... boot ... ID") of
// the pod sandbox id, with the flags runsc was started with (runsc.toml's flags appear as --flag=value).
func (n *Node) RunscSandboxCmdline(id string) ([]string, error) {
	var found [][]string
	for _, p := range n.nodeProcs() {
		if len(p.cmdline) > 0 && p.cmdline[0] == "runsc-sandbox" && slices.Contains(p.cmdline, id) {
			found = append(found, p.cmdline)
		}
	}
	if len(found) != 1 {
		var runsc []string
		for _, p := range n.nodeProcs() {
			if len(p.cmdline) > 0 && strings.Contains(p.cmdline[0], "runsc") {
				runsc = append(runsc, p.String())
			}
		}
		return nil, fmt.Errorf("%d runsc-sandbox processes for sandbox %s, want 1; runsc processes on the node: %v", len(found), id, runsc)
	}
	return found[0], nil
}

// RunscSandboxExeSum returns the SHA-512 (hex) of the executable the runsc sandbox process of sandbox id runs: which
// release's runsc that sandbox was started with, whatever the bin dir's links say now.
func (n *Node) RunscSandboxExeSum(id string) (string, error) {
	for _, p := range n.nodeProcs() {
		if len(p.cmdline) > 0 && p.cmdline[0] == "runsc-sandbox" && slices.Contains(p.cmdline, id) {
			f, err := os.Open(filepath.Join("/proc", strconv.Itoa(p.pid), "exe"))
			if err != nil {
				return "", fmt.Errorf("opening the executable of %s: %w", p, err)
			}
			defer f.Close()
			h := sha512.New()
			if _, err := io.Copy(h, f); err != nil {
				return "", fmt.Errorf("reading the executable of %s: %w", p, err)
			}
			return hex.EncodeToString(h.Sum(nil)), nil
		}
	}
	return "", fmt.Errorf("no runsc-sandbox process for sandbox %s on the node", id)
}
