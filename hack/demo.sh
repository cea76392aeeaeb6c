#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# make demo: the extension's main job on an embedded default, on this machine, with no cluster and no Docker.
# Starts the local control plane (etcd, kube-apiserver, kube-controller-manager built by
# hack/tools/control-plane.sh), installs Gardener's CRDs, runs gardener-resource-manager and our controller
# binary (bin/gardener-extension-runtime-gvisor from `make build`), applies example/seed/cluster.yaml and
# example/containerruntime.yaml like gardenlet, prints the RuntimeClass and DaemonSet that land in the "shoot"
# and the health conditions (SystemComponentsHealthy, EveryNodeReady) the healthcheck controller writes on the
# ContainerRuntime, deletes the ContainerRuntime and shuts everything down. Exits non-zero on any failure.
# Extra arguments go to the demo program, e.g. `hack/demo.sh --containerruntimes example/containerruntimes-two-pools.yaml`
# or `--keep` to explore with kubectl before shutting down.
#
# It installs only the tools it runs, each announced in one "[tools] ..." line with its cold build time; the Go
# toolchain's "go: downloading" lines are left out (the rest of a tool's output, errors included, is shown).
set -euo pipefail
source "$(dirname "$0")/tools/lib.sh"
cd "$REPO_ROOT"

# tool SCRIPT [ARGS...]: the path(s) the tool installer prints, without the module downloads' chatter.
tool() { "$@" 2> >(grep -v '^go: downloading ' >&2); }

KUBEBUILDER_ASSETS="$(tool hack/tools/control-plane.sh)"
export KUBEBUILDER_ASSETS
controller="bin/gardener-extension-runtime-gvisor"
if [ ! -x "$controller" ]; then
  echo "[demo] $controller missing: run \`make build\` (or \`make demo\`, which builds it)" >&2
  exit 1
fi
mkdir -p bin
go build -o bin/demo ./test/envtest/demo
bin/demo --controller-binary "$controller" "$@"

# Then the promise itself, on a real node where the machine allows it (root, private namespaces): the extension as it
# ships (images built from this tree, the chart installed with helm) and a pod with runtimeClassName gvisor
# (test/e2e/demo). Only in the daemonset mode: the OperatingSystemConfig mode needs gardener-node-agent on the node.
case " $* " in *" --mode osc "*|*" --mode operatingsystemconfig "*|*" --keep "*) exit 0 ;; esac
# What the real node runs (test/e2e/demo's flags): helm, containerd 2.4 only, the gVisor release for the images,
# Debian's busybox-static and CNI plugins, Debian's dbus-daemon.
HELM_BIN="$(tool hack/tools/helm.sh)"
GVISOR_TEST_CONTAINERD="$(tool hack/tools/containerd.sh 2.4.2)"
GVISOR_TEST_GVISOR_DIR="$(tool hack/tools/gvisor.sh)"
GVISOR_TEST_NODE="$(tool hack/tools/node.sh)"
GVISOR_TEST_DBUS_DAEMON="$(tool hack/tools/dbus.sh)"
export HELM_BIN GVISOR_TEST_CONTAINERD GVISOR_TEST_GVISOR_DIR GVISOR_TEST_NODE GVISOR_TEST_DBUS_DAEMON
go build -o bin/demo-node ./test/e2e/demo
exec bin/demo-node
