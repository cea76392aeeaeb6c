// SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
// SPDX-License-Identifier: Apache-2.0

// Command gvisor-render prints, as multi-document YAML, every object the extension puts into a shoot for the
// ContainerRuntimes in a file: the RuntimeClass chart once and each pool's installation chart. It renders through
// pkg/render's Renderer.Shoot, the function the controller deploys from, with the same operator settings as flags
// of the same names (--readiness-gate, --prove-sandbox, --delivery-mode) and what the controller reads from the
// shoot's Cluster as flags (--kubernetes-version, --architecture), so that its output is byte for byte what the
// controller puts into the shoot's ManagedResources (a test in pkg/controller/containerruntime holds them equal).
//
//	gvisor-render -f CONTAINERRUNTIME.yaml [--kubernetes-version V] [--architecture POOL=ARCH]... [--image-vector-overwrite FILE]
//	              [--readiness-gate] [--prove-sandbox=false] [--delivery-mode daemonset|operatingsystemconfig] [--uninstall] [--seed]
//
// --uninstall prints what the extension puts into the shoot while it removes gVisor from the pools instead: each
// pool's installation DaemonSet in uninstall mode. Why the readiness gate is off although --readiness-gate asks for
// it (a shoot below Kubernetes 1.30, an unknown version, the OperatingSystemConfig mode) goes to standard error.
//
// --seed prints instead what the controller keeps in the shoot's namespace on the seed (the ContainerRuntimes'
// namespace) for the shoot's Prometheus and Plutono with its --shoot-monitoring: pkg/monitoring's ScrapeConfigs,
// PrometheusRule and dashboard ConfigMap, the objects the controller writes.
//
// Images follow the extension's rule (see imagevector/README.md): a release build tags our images with its
// version, any other build keeps the last released tag; IMAGEVECTOR_OVERWRITE or --image-vector-overwrite apply on
// top. Exit status: 0 success, 1 bad input or render failure, 2 bad usage.
package main

import (
	"os"

	"github.com/runtime-gvisor/gardener-extension-runtime-gvisor/pkg/version"
)

func main() {
	os.Exit(run(os.Args[1:], version.Version, os.Stdout, os.Stderr))
}
