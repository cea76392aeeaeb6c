package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/sandbox"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/installer/verify"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

// maxTerminationMessage keeps the termination message one short line (the kubelet caps it at 4096 bytes).
const maxTerminationMessage = 1024

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
		fs.StringVar(&f.terminationMessage, "termination-message", "", "on failure, write one line saying why to this file if it exists "+
			"(the container's terminationMessagePath, /dev/termination-log; shown in the pod's status)")
	}
}

// proofOptions sets the Prover and LockTimeout; a proof asked for explicitly without a CRI contract is a usage error.
func (f *flags) proofOptions(cmd string, o *installer.Options) error {
	o.LockTimeout = f.lockTimeout
	if cmd == "uninstall" || !f.proveSandbox.value {
		return nil
	}
	if f.restart != "systemd" {
		if f.proveSandbox.set {
			return fmt.Errorf("--prove-sandbox needs --restart=systemd: with --restart=none the installer does not talk to containerd")
		}
		return nil
	}
	o.Prover = sandbox.CRI{Socket: f.hostRoot + verify.CRISocket, Timeout: f.proveTimeout, Creator: versionString()}
	return nil
}

// writeTerminationMessage writes why the run failed to --termination-message as one short line. The kubelet
// creates that file for every container; outside Kubernetes it does not exist and nothing is written (or reported).
// verdict is the run's Result.Verdict, "" when the run did not get that far (see terminationLine).
func (f *flags) writeTerminationMessage(cmd string, err error, verdict string) {
	if f == nil || f.terminationMessage == "" {
		return
	}
	file, ferr := os.OpenFile(f.terminationMessage, os.O_WRONLY|os.O_TRUNC, 0)
	if ferr != nil {
		return
	}
	defer file.Close()
	_, _ = file.WriteString(terminationLine(cmd, err, verdict) + "\n")
}

// terminationLine is the termination message's contract, which the extension's healthcheck controller quotes per
// node in the ContainerRuntime's EveryNodeReady condition (and `kubectl get pod -o yaml` shows under
// lastState.terminated.message): one line, at most maxTerminationMessage bytes, that STARTS with the reason in
// stable words, so that it reads well cut short and can be matched:
//
//   - "containerd 1.6.20 is not supported (minimum containerd 1.7.0); gvisor-installer <version> install failed"
//   - "gVisor sandbox did not start on containerd 2.0.14: <why>; gvisor-installer <version> install failed"
//   - otherwise "<cmd> failed (<version>): <error>", e.g. a refused containerd config or a lock timeout.
func terminationLine(cmd string, err error, verdict string) string {
	msg := fmt.Sprintf("%s failed (%s): %v", cmd, version.Version, err)
	if verdict != "" {
		msg = fmt.Sprintf("%s; gvisor-installer %s %s failed", verdict, version.Version, cmd)
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > maxTerminationMessage {
		msg = strings.ToValidUTF8(msg[:maxTerminationMessage-3], "") + "..."
	}
	return msg
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
