// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command demo is `make demo`: the extension's main job on an embedded default. It starts the local control plane
// of package envtest (etcd, kube-apiserver, kube-controller-manager, Gardener's CRDs), gardener-resource-manager
// and our controller manager (the binary from `make build`, or in-process), applies the Cluster of example/seed
// and the ContainerRuntime(s) of example/containerruntime.yaml as gardenlet would, prints the RuntimeClass and
// DaemonSets that land in the "shoot", deletes the ContainerRuntimes again and shuts everything down.
// With --mode operatingsystemconfig (make demo MODE=osc) the controller runs in the OperatingSystemConfig delivery
// mode with its webhook registered on loopback: the demo writes the pool's OSC as gardenlet does and prints it as
// the webhook mutated it, next to the RuntimeClass (and no DaemonSet). It exits non-zero if any step fails or times out.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/test/envtest"
)

// mode is the delivery mode, the default for none.
func mode(m delivery.Mode) delivery.Mode {
	if m == "" {
		return delivery.DaemonSet
	}
	return m
}

func main() {
	var o options
	flag.StringVar(&o.assets, "kubebuilder-assets", os.Getenv("KUBEBUILDER_ASSETS"), "folder with etcd, kube-apiserver, kube-controller-manager (hack/tools/control-plane.sh prints it)")
	flag.StringVar(&o.controllerBinary, "controller-binary", "", "run this controller binary (bin/gardener-extension-runtime-gvisor); empty runs the controller in-process")
	flag.StringVar(&o.seed, "seed", "example/seed/cluster.yaml", "the shoot namespace and Cluster, as gardenlet writes them")
	flag.StringVar(&o.containerRuntimes, "containerruntimes", "example/containerruntime.yaml", "ContainerRuntime(s) of type gvisor to apply")
	flag.DurationVar(&o.timeout, "timeout", 3*time.Minute, "give up (exit 1) if the demo has not finished by then")
	flag.Func("mode", "delivery mode: daemonset (default) or operatingsystemconfig (osc): the webhook mutates the demo pool's OSC, the controller deploys only the RuntimeClass (docs/delivery-modes.md)",
		func(s string) (err error) {
			if s == "osc" {
				s = string(delivery.OperatingSystemConfig)
			}
			o.mode, err = delivery.Parse(s)
			return err
		})
	flag.BoolVar(&o.keep, "keep", false, "keep everything running after printing the results (Ctrl-C stops); the admin kubeconfig path is printed")
	flag.Parse()

	// envtest logs through controller-runtime's global logger; its errors are returned and printed anyway.
	logf.SetLogger(logr.Discard())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "[demo] FAILED:", err)
		os.Exit(1)
	}
	say("done")
}

type options struct {
	assets, controllerBinary, seed, containerRuntimes string
	timeout                                           time.Duration
	keep                                              bool
	mode                                              delivery.Mode
}

// say prints one line of the demo's report: its output on stdout is what the demo is for.
func say(format string, args ...any) {
	fmt.Fprintf(os.Stdout, "[demo] "+format+"\n", args...)
}

func run(ctx context.Context, o options) (err error) {
	if o.assets == "" {
		return errors.New("no control plane binaries: pass --kubebuilder-assets or set KUBEBUILDER_ASSETS (hack/tools/control-plane.sh prints the folder)")
	}
	seedObjs, err := readObjects(o.seed)
	if err != nil {
		return err
	}
	crObjs, err := readObjects(o.containerRuntimes)
	if err != nil {
		return err
	}

	args := []string{"--log-level=info"}
	if o.mode == delivery.OperatingSystemConfig {
		oscArgs, cleanup, err := oscControllerArgs()
		if err != nil {
			return err
		}
		defer cleanup()
		args = append(args, oscArgs...)
		markShootNamespace(seedObjs)
	}
	say("delivery mode %s", mode(o.mode))

	s, err := startStack(ctx, o, args)
	if err != nil {
		return err
	}
	defer func() {
		say("shutting down: controller, gardener-resource-manager, kube-controller-manager, kube-apiserver, etcd")
		err = errors.Join(err, s.Stop())
	}()

	demoCtx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if err := apply(demoCtx, s, mode(o.mode), seedObjs, crObjs); err != nil {
		return err
	}
	if o.keep {
		say("keeping everything running; try: kubectl --kubeconfig %s get containerruntimes,managedresources -A", s.KubeconfigPath)
		say("press Ctrl-C to stop (the ContainerRuntimes are deleted first)")
		<-ctx.Done()
		demoCtx, cancel = context.WithTimeout(context.Background(), o.timeout)
		defer cancel()
	}
	return deleteAll(demoCtx, s, crObjs)
}

// startStack starts the control plane, gardener-resource-manager and the controller with args, and says so.
func startStack(ctx context.Context, o options, args []string) (*envtest.Stack, error) {
	start := time.Now()
	controller := "in-process"
	if o.controllerBinary != "" {
		controller = o.controllerBinary
	}
	say("starting etcd, kube-apiserver and kube-controller-manager from %s, installing Gardener's CRDs, "+
		"starting gardener-resource-manager and the controller (%s)", o.assets, controller)
	s, err := envtest.StartStack(ctx, envtest.StackOptions{
		Options:          envtest.Options{AssetsDir: o.assets},
		ControllerBinary: o.controllerBinary,
		ControllerArgs:   args,
	})
	if err != nil {
		return nil, err
	}
	say("control plane and controller ready in %s (controller /readyz OK)", time.Since(start).Round(100*time.Millisecond))
	if s.ControllerLog != "" {
		say("controller log: %s", s.ControllerLog)
	}
	return s, nil
}
