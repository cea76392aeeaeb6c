#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 The gardener-extension-runtime-gvisor authors
# SPDX-License-Identifier: Apache-2.0
# Sourced by hack/test.sh, hack/bench.sh and hack/snapshots.sh: installs (or finds in the tool cache) every real
# component the tests use and exports the variables through which test/realcomponents finds them.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

export HELM_BIN="$("$REPO_ROOT/hack/tools/helm.sh")"
export KUBEBUILDER_ASSETS="$("$REPO_ROOT/hack/tools/control-plane.sh")"
# One "version=dir" entry per containerd release, separated by spaces; dir holds containerd, ctr, containerd-shim-runc-v2.
export GVISOR_TEST_CONTAINERD="$("$REPO_ROOT/hack/tools/containerd.sh")"
# Directory with static runsc and containerd-shim-runsc-v1.
export GVISOR_TEST_GVISOR_DIR="$("$REPO_ROOT/hack/tools/gvisor.sh")"
# The same gVisor built a second way (every file differs): the second release of upgrade and rollback tests.
export GVISOR_TEST_GVISOR_REBUILD_DIR="$("$REPO_ROOT/hack/tools/gvisor.sh" rebuild)"
# Debian's dbus-daemon: the systemd restarter test runs against a real bus.
export GVISOR_TEST_DBUS_DAEMON="$("$REPO_ROOT/hack/tools/dbus.sh")"
# golangci-lint, built from the Go module proxy: hack/lint.sh runs it with .golangci.yaml.
export GOLANGCI_LINT="$("$REPO_ROOT/hack/tools/golangci-lint.sh")"
# Debian's busybox-static and CNI plugins: the real-sandbox nodes of test/node (and the field's idle loop).
export GVISOR_TEST_NODE="$("$REPO_ROOT/hack/tools/node.sh")"
# Prometheus' promtool, built from the Go module proxy: test/monitoring judges the gVisor rules and alerts with it.
export GVISOR_TEST_PROMTOOL="$("$REPO_ROOT/hack/tools/promtool.sh")"
# A real Prometheus and prometheus-operator's config generator (test/tools/prometheus-config): "<prometheus> <generator>".
export GVISOR_TEST_PROMETHEUS="$("$REPO_ROOT/hack/tools/prometheus.sh")"
# kube-state-metrics at the release Gardener runs for every shoot: test/e2e judges the installation alerts on its series.
export GVISOR_TEST_KUBE_STATE_METRICS="$("$REPO_ROOT/hack/tools/kube-state-metrics.sh")"
# crictl, built from the Go module proxy: the VM node's tests ask its containerd over CRI with it.
export GVISOR_TEST_CRICTL="$("$REPO_ROOT/hack/tools/crictl.sh")"
# The VM node's disk (Debian bookworm, systemd, cgroup v2), built from Debian's packages, and QEMU: test/vmnode.
export GVISOR_TEST_VM_NODE="$("$REPO_ROOT/hack/tools/vm-node.sh")"
# Gardener's gardener-node-agent, built from the Gardener release go.mod pins: the VM node runs it in the OSC mode.
export GVISOR_TEST_NODE_AGENT="$("$REPO_ROOT/hack/tools/node-agent.sh")"
# SIG Network's kube-network-policies: the VM node's NetworkPolicy enforcer (who reaches the metric server).
export GVISOR_TEST_NETWORK_POLICIES="$("$REPO_ROOT/hack/tools/network-policies.sh")"
# NVIDIA's nvidia-ctk and nvidia-cdi-hook (a directory): test/sandbox runs the GPU operator's CDI hooks through runsc.
export GVISOR_TEST_NVIDIA_TOOLKIT="$("$REPO_ROOT/hack/tools/nvidia-toolkit.sh")"
