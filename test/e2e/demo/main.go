// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command demo is the real-node part of `make demo`: on a machine that allows it (root, private namespaces), it
// builds this tree's images, brings up a real node (test/kubenode: kubelet, containerd, a control plane), installs
// the extension chart with helm as an operator does, creates example/'s shoot and ContainerRuntime as gardenlet
// does, runs a pod with runtimeClassName gvisor, prints its kernel line and the ContainerRuntime's two health
// conditions, and tears everything down. Where the machine does not allow it, it says why in one line and exits 0
// (hack/demo.sh has shown the control-plane part already).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

func main() {
	var o options
	flag.StringVar(&o.assets, "kubebuilder-assets", os.Getenv("KUBEBUILDER_ASSETS"), "folder with etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kubectl (hack/tools/control-plane.sh)")
	flag.StringVar(&o.containerd, "containerd", os.Getenv("GVISOR_TEST_CONTAINERD"), "containerd releases as version=dir entries (hack/tools/containerd.sh); the newest is used")
	flag.StringVar(&o.gvisorDir, "gvisor-dir", os.Getenv("GVISOR_TEST_GVISOR_DIR"), "the gVisor release for the installation image (hack/tools/gvisor.sh)")
	flag.StringVar(&o.nodeTools, "node-tools", os.Getenv("GVISOR_TEST_NODE"), "busybox=PATH cni=DIR (hack/tools/node.sh)")
	flag.StringVar(&o.dbusDaemon, "dbus-daemon", os.Getenv("GVISOR_TEST_DBUS_DAEMON"), "Debian's dbus-daemon (hack/tools/dbus.sh)")
	flag.StringVar(&o.helm, "helm", os.Getenv("HELM_BIN"), "the helm CLI (hack/tools/helm.sh)")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up (exit 1) if the demo has not finished by then")
	flag.Parse()
	logf.SetLogger(logr.Discard())

	if why := unsupported(); why != "" {
		say("no real node on this machine (%s): the control-plane demo above is what it can show", why)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "[demo] FAILED:", err)
		os.Exit(1)
	}
	say("done")
}

type options struct {
	assets, containerd, gvisorDir, nodeTools, dbusDaemon, helm string
	timeout                                                    time.Duration
}

// say prints one line of the demo's report.
func say(format string, args ...any) {
	fmt.Fprintf(os.Stdout, "[demo] "+format+"\n", args...)
}

// unsupported says why this machine cannot run a real node, or "".
func unsupported() string {
	if os.Geteuid() != 0 {
		return "not root: a node needs mount, network and PID namespaces, mounts and cgroups"
	}
	if out, err := exec.Command("unshare", "-m", "-n", "-p", "-f", "--mount-proc", "true").CombinedOutput(); err != nil {
		return fmt.Sprintf("private namespaces are not allowed here: unshare: %v %s", err, out)
	}
	return ""
}

// step runs one step and prints its duration, then the details it noted.
func step(what string, f func() error) error {
	return stepWith(what, func(func(string, ...any)) error { return f() })
}

// stepWith is step for a step that notes details (printed indented after its line).
func stepWith(what string, f func(note func(string, ...any)) error) error {
	start := time.Now()
	var notes []string
	if err := f(func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	say("%-62s %5.1fs", what, time.Since(start).Seconds())
	for _, n := range notes {
		say("  %s", n)
	}
	return nil
}

var errMissing = errors.New("missing")
