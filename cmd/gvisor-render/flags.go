// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/imagevector"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/delivery"
	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/render"
)

const usage = `Usage: gvisor-render -f CONTAINERRUNTIME.yaml [--kubernetes-version V] [--architecture POOL=ARCH]...
                     [--image-vector-overwrite FILE] [--readiness-gate] [--prove-sandbox=false] [--reprove-interval D]
                     [--delivery-mode daemonset|operatingsystemconfig] [--sandbox-metrics] [--uninstall] [--seed]

Prints every object the extension puts into the shoot for the ContainerRuntime(s) in the file
(one or more YAML documents of kind ContainerRuntime, type gvisor, of one shoot), exactly as the
controller deploys them. With --uninstall: what it puts there while removing gVisor from those pools
instead (each pool's installation DaemonSet in uninstall mode; no RuntimeClass). With --seed: what it
keeps in the shoot's namespace on the seed for the shoot's monitoring instead.

Flags:
`

// invocation is the parsed command line: the input file, the renderer's inputs and the operator's settings.
type invocation struct {
	file, overwrite string
	settings        render.Settings
	shoot           render.ShootInput // without ContainerRuntimes: they come from file
	showVersion     bool
	seed            bool
}

// parseFlags parses args; a usage error has been reported on stderr when it returns an error.
func parseFlags(args []string, stderr io.Writer) (*invocation, error) {
	inv := &invocation{shoot: render.ShootInput{Architectures: map[string]string{}}}
	fs := flag.NewFlagSet("gvisor-render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&inv.file, "f", "", "file with the ContainerRuntime(s) to render (- for standard input)")
	fs.StringVar(&inv.overwrite, "image-vector-overwrite", os.Getenv(imagevector.OverrideEnv),
		"image vector overwrite file (Gardener's format); defaults to $"+imagevector.OverrideEnv)
	fs.StringVar(&inv.shoot.KubernetesVersion, "kubernetes-version", "",
		"the shoot's Kubernetes version (spec.kubernetes.version): picks image vector entries with a targetVersion; the readiness gate needs "+
			render.ReadinessGateMinVersion+" or later (empty: unknown, as for the controller without a Cluster)")
	fs.Func("architecture", "POOL=ARCH: the machine architecture of a worker pool (amd64 or arm64, the Shoot's "+
		"machine.architecture); repeatable. A pool without one gets every architecture's release sums", inv.addArchitecture)
	fs.BoolVar(&inv.settings.ReadinessGate, "readiness-gate", false,
		"render with the scheduling readiness gate on (the extension's --readiness-gate setting, docs/readiness-gate.md)")
	proveSandbox := fs.Bool("prove-sandbox", true,
		"render the installer's sandbox proof on (the extension's --prove-sandbox setting); false renders --prove-sandbox=false")
	fs.DurationVar(&inv.settings.ReproveInterval, "reprove-interval", render.DefaultReproveInterval,
		"with the sandbox proof: how often each node's installation pod proves gVisor again (the extension's --reprove-interval "+
			"setting; whole seconds, at least "+render.MinReproveInterval.String()+")")
	fs.Func("delivery-mode", "how gVisor reaches the nodes (the extension's --delivery-mode setting): daemonset (default: an "+
		"installation DaemonSet per pool) or operatingsystemconfig (gardener-node-agent installs it; only the RuntimeClass is rendered)",
		func(s string) (err error) { inv.settings.DeliveryMode, err = delivery.Parse(s); return err })
	fs.BoolVar(&inv.settings.SandboxMetrics, "sandbox-metrics", false,
		"render with sandbox metrics on for every pool whose providerConfig does not set sandboxMetrics (the extension's "+
			"--sandbox-metrics setting): runsc's metric-server flag and the metric server container, docs/monitoring.md")
	fs.BoolVar(&inv.shoot.Uninstall, "uninstall", false,
		"render the pools' uninstall mode (removal of gVisor from them: the same DaemonSets running gvisor-installer uninstall)")
	fs.BoolVar(&inv.seed, "seed", false,
		"print instead what the controller keeps in the shoot's namespace on the seed (the ContainerRuntimes' namespace) for the "+
			"shoot's Prometheus and Plutono with the extension's --shoot-monitoring: ScrapeConfigs, PrometheusRule, dashboard "+
			"ConfigMap (docs/monitoring.md); --delivery-mode picks the nodes' ScrapeConfig")
	fs.BoolVar(&inv.showVersion, "version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	inv.settings.SkipSandboxProof = !*proveSandbox
	// Refused here as the controller refuses it at start (cmd/gardener-extension-runtime-gvisor Validate): a usage
	// error, not a rendering error of the file.
	if err := render.ValidateReproveInterval(inv.settings.ReproveInterval); err != nil {
		fmt.Fprintf(stderr, "gvisor-render: --reprove-interval: %v\n", err)
		return nil, fmt.Errorf("usage: %w", err)
	}
	if !inv.showVersion && (inv.file == "" || fs.NArg() > 0) {
		fmt.Fprintln(stderr, "gvisor-render: -f FILE is required, and takes no other arguments")
		fs.Usage()
		return nil, fmt.Errorf("usage")
	}
	return inv, nil
}

func (inv *invocation) addArchitecture(s string) error {
	pool, arch, ok := strings.Cut(s, "=")
	if !ok || pool == "" || arch == "" {
		return fmt.Errorf("want POOL=ARCH, for example worker-gvisor=arm64")
	}
	inv.shoot.Architectures[pool] = arch
	return nil
}
