// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/nodecontract"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// addProofFlags registers the flags of the sandbox proof (install, plan), the node's lock and the termination
// message (install, uninstall).
func (f *flags) addProofFlags(cmd string, fs *flag.FlagSet) {
	if cmd != "uninstall" {
		f.proveSandbox = optionalBool{value: true}
		fs.Var(&f.proveSandbox, "prove-sandbox", "after registering runsc (and on every re-run) start a real gVisor sandbox over CRI "+
			"(handler runsc, host network, the node's sandbox image) and remove it; install succeeds only if it starts, otherwise runsc is "+
			"unregistered again. Only with --restart=systemd (with --restart=none the installer does not talk to containerd); false turns it off")
		fs.DurationVar(&f.proveTimeout, "prove-timeout", sandbox.DefaultTimeout, "bound of the sandbox proof, sandbox image pull included")
	}
	fs.DurationVar(&f.lockTimeout, "lock-timeout", installer.DefaultLockTimeout, "how long to wait for another gvisor-installer run on this node "+
		"(flock on <host-root>"+installer.LockDir+") before refusing")
	if cmd == "install" || cmd == "uninstall" {
		fs.StringVar(&f.terminationMessage, "termination-message", "", "write one line to this file if it exists (the container's terminationMessagePath, "+
			"/dev/termination-log; shown in the pod's status): on success the gVisor and containerd versions and any foreign shims, "+
			"on failure why")
	}
}

// prover is the sandbox proof the flags ask for: on by default with --restart=systemd (the only restart that talks
// to containerd), off by default with --restart=none; an explicit --prove-sandbox with --restart=none is passed on,
// and installer.Resolve refuses it, saying why.
func (f *flags) prover(cmd string) sandbox.Prover {
	if cmd == "uninstall" || !f.proveSandbox.value || (f.restart != "systemd" && !f.proveSandbox.set) {
		return nil
	}
	return sandbox.CRI{Socket: f.hostRoot + verify.CRISocket, Timeout: f.proveTimeout, Creator: versionString()}
}

// writeTerminationMessage writes line (one line of package report's contract: a success's or terminationLine's) to
// --termination-message. The kubelet creates that file for every container; outside Kubernetes it does not exist
// and nothing is written (or reported).
func (f *flags) writeTerminationMessage(line string) {
	if f == nil || f.terminationMessage == "" {
		return
	}
	file, err := os.OpenFile(f.terminationMessage, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return
	}
	defer file.Close()
	_, _ = file.WriteString(line + "\n")
}

// terminationLine is a failed run's termination message (package report has the contract and a success's line),
// which the extension's healthcheck controller quotes per node in the ContainerRuntime's EveryNodeReady condition:
// one line, at most nodecontract.MaxReportLength bytes, that STARTS with the reason in stable words, so that it reads well cut
// short and can be matched:
//
//   - "containerd 1.6.20 is not supported (minimum containerd 1.7.0); gvisor-installer <version> install failed"
//   - "gVisor sandbox did not start on containerd 2.0.14: <why>; gvisor-installer <version> install failed"
//   - otherwise "<cmd> failed (<version>): <error>", e.g. a refused containerd config or a lock timeout.
func terminationLine(cmd string, err error, verdict string) string {
	msg := fmt.Sprintf("%s failed (%s): %v", cmd, version.Version, err)
	if verdict != "" {
		msg = fmt.Sprintf("%s; gvisor-installer %s %s failed", verdict, version.Version, cmd)
	}
	return nodecontract.BoundLine(msg)
}

// optionalBool is a boolean flag that knows whether it was given.
type optionalBool struct{ value, set bool }

func (b *optionalBool) String() string { return strconv.FormatBool(b.value) }

func (b *optionalBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.value, b.set = v, true
	return nil
}

func (b *optionalBool) IsBoolFlag() bool { return true }
